package dev.larder.jcache.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.jcache.LarderCachingProvider;
import dev.larder.jcache.LarderConfiguration;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.StreamSupport;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.hibernate.SessionFactory;
import org.hibernate.cache.jcache.internal.JCacheRegionFactory;
import org.hibernate.cache.spi.RegionFactory;
import org.hibernate.cfg.Configuration;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hibernate ORM 7.2's second-level cache served by Larder through hibernate-jcache, on an in-memory
 * H2 database: entity, collection and query caching, with every region declared in the Larder
 * configuration file (Hibernate is told to fail on a missing region), and the forms of {@code
 * hibernate.javax.cache.uri} that reach the provider.
 */
class HibernateSecondLevelCacheTest {

  private static final String AUTHOR_REGION = Author.class.getName();
  private static final String BOOK_REGION = Book.class.getName();
  private static final String BOOKS_REGION = Author.class.getName() + ".books";
  private static final String QUERY_REGION = "default-query-results-region";
  private static final String TIMESTAMPS_REGION = "default-update-timestamps-region";
  private static final String TITLE_QUERY =
      "select b from Book b where b.title like :t order by b.id";

  private static SessionFactory sessionFactory(String cacheUri, String regionPrefix) {
    Configuration cfg =
        new Configuration()
            .addAnnotatedClass(Author.class)
            .addAnnotatedClass(Book.class)
            .setProperty(
                "hibernate.connection.url",
                "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
            .setProperty("hibernate.hbm2ddl.auto", "create-drop")
            .setProperty("hibernate.cache.use_second_level_cache", "true")
            .setProperty("hibernate.cache.use_query_cache", "true")
            .setProperty("hibernate.cache.region.factory_class", "jcache")
            .setProperty("hibernate.javax.cache.provider", LarderCachingProvider.class.getName())
            .setProperty("hibernate.javax.cache.uri", cacheUri)
            // Every region must be declared in the file: a missing one fails the start.
            .setProperty("hibernate.javax.cache.missing_cache_strategy", "fail")
            .setProperty("hibernate.generate_statistics", "true");
    if (regionPrefix != null) {
      cfg.setProperty("hibernate.cache.region_prefix", regionPrefix);
    }
    return cfg.buildSessionFactory();
  }

  private static CacheManager larderManager(SessionFactory factory) {
    RegionFactory regions =
        factory.unwrap(SessionFactoryImplementor.class).getCache().getRegionFactory();
    return ((JCacheRegionFactory) regions).getCacheManager();
  }

  private static void insertLibrary(SessionFactory factory) {
    factory.inTransaction(
        session -> {
          Author ada = new Author(1, "Ada");
          session.persist(ada);
          session.persist(new Book(10, "Notes on the Engine", ada));
          session.persist(new Book(11, "Sketch of the Engine", ada));
        });
  }

  private static Set<String> titlesOfAuthor(SessionFactory factory) {
    return factory.fromTransaction(
        session -> {
          Author author = session.find(Author.class, 1L);
          return Set.copyOf(author.getBooks().stream().map(Book::getTitle).toList());
        });
  }

  private static List<String> queryTitles(SessionFactory factory, String pattern) {
    return factory.fromTransaction(
        session ->
            session
                .createQuery(TITLE_QUERY, Book.class)
                .setParameter("t", pattern)
                .setCacheable(true)
                .getResultList()
                .stream()
                .map(Book::getTitle)
                .toList());
  }

  private static long entries(Cache<?, ?> cache) {
    return StreamSupport.stream(cache.spliterator(), false).count();
  }

  @Test
  void entitiesCollectionsAndQueriesAreServedByLarder() throws Exception {
    try (SessionFactory factory = sessionFactory("larder-hibernate.properties", null)) {
      Statistics stats = factory.getStatistics();
      insertLibrary(factory);
      assertEquals(Set.of("Notes on the Engine", "Sketch of the Engine"), titlesOfAuthor(factory));

      stats.clear();
      assertEquals(Set.of("Notes on the Engine", "Sketch of the Engine"), titlesOfAuthor(factory));
      assertEquals(0, stats.getPrepareStatementCount(), "entity and collection come from Larder");
      assertEquals(1, stats.getDomainDataRegionStatistics(AUTHOR_REGION).getHitCount());
      assertEquals(1, stats.getDomainDataRegionStatistics(BOOKS_REGION).getHitCount());
      assertEquals(2, stats.getDomainDataRegionStatistics(BOOK_REGION).getHitCount());

      List<String> engine = List.of("Notes on the Engine", "Sketch of the Engine");
      assertEquals(engine, queryTitles(factory, "%Engine"));
      stats.clear();
      assertEquals(engine, queryTitles(factory, "%Engine"));
      assertEquals(0, stats.getPrepareStatementCount(), "the query result comes from Larder");
      assertEquals(1, stats.getQueryCacheHitCount());

      CacheManager manager = larderManager(factory);
      assertEquals(
          URI.create(
              getClass().getClassLoader().getResource("larder-hibernate.properties").toString()),
          manager.getURI());
      assertTrue(manager.getCachingProvider() instanceof LarderCachingProvider);
      assertEquals(1, entries(manager.getCache(AUTHOR_REGION)));
      assertEquals(2, entries(manager.getCache(BOOK_REGION)));
      assertEquals(1, entries(manager.getCache(BOOKS_REGION)));
      assertEquals(1, entries(manager.getCache(QUERY_REGION)));
      @SuppressWarnings("unchecked")
      LarderConfiguration<Object, Object> bookConfig =
          manager.getCache(BOOK_REGION).getConfiguration(LarderConfiguration.class);
      assertEquals(10_000, bookConfig.getMaximumEntries(), "the file's settings govern the region");
      assertTrue(larderCacheHits(BOOK_REGION) >= 2, "JCache statistics count the hits");

      // An update invalidates the cached query (through the timestamps region) and the entity
      // cache serves the new state.
      factory.inTransaction(session -> session.find(Book.class, 11L).setTitle("Sketch (2nd ed.)"));
      stats.clear();
      assertEquals(List.of("Notes on the Engine"), queryTitles(factory, "%Engine"));
      assertEquals(0, stats.getQueryCacheHitCount(), "the stale result is not served");
      assertEquals(1, stats.getQueryCachePutCount());
      assertTrue(stats.getPrepareStatementCount() > 0, "the query ran again");
      assertTrue(entries(manager.getCache(TIMESTAMPS_REGION)) > 0);
      stats.clear();
      String title = factory.fromTransaction(s -> s.find(Book.class, 11L).getTitle());
      assertEquals("Sketch (2nd ed.)", title);
      assertEquals(0, stats.getPrepareStatementCount(), "the updated entity comes from Larder");
    }
  }

  private static long larderCacheHits(String cacheName) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    Set<ObjectName> names =
        server.queryNames(
            new ObjectName("javax.cache:type=CacheStatistics,Cache=" + cacheName + ",*"), null);
    assertEquals(1, names.size(), names::toString);
    return (Long) server.getAttribute(names.iterator().next(), "CacheHits");
  }

  @Test
  void aFileUriAndARegionPrefixWork(@TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("larder prefixed.properties"),
            prefixed(
                "library",
                Files.readString(
                    Path.of(
                        getClass()
                            .getClassLoader()
                            .getResource("larder-hibernate.properties")
                            .toURI()))));
    try (SessionFactory factory = sessionFactory(file.toUri().toString(), "library")) {
      insertLibrary(factory);
      titlesOfAuthor(factory);
      factory.getStatistics().clear();
      titlesOfAuthor(factory);
      assertEquals(0, factory.getStatistics().getPrepareStatementCount());
      CacheManager manager = larderManager(factory);
      assertEquals(file.toUri(), manager.getURI());
      assertEquals(1, entries(manager.getCache("library." + AUTHOR_REGION)));
      assertEquals(1, entries(manager.getCache("library." + BOOKS_REGION)));
    }
  }

  /** The file's cache names with the region prefix Hibernate puts before each region. */
  private static String prefixed(String prefix, String properties) {
    return properties
        .replace("cache.dev.", "cache." + prefix + ".dev.")
        .replace("cache.default-", "cache." + prefix + ".default-");
  }

  @Test
  void aJarUriWorks(@TempDir Path dir) throws Exception {
    Path jar = dir.resolve("config.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry("config/larder-hibernate.properties"));
      out.write(
          getClass()
              .getClassLoader()
              .getResourceAsStream("larder-hibernate.properties")
              .readAllBytes());
      out.closeEntry();
    }
    String uri = "jar:" + jar.toUri() + "!/config/larder-hibernate.properties";
    try (SessionFactory factory = sessionFactory(uri, null)) {
      insertLibrary(factory);
      titlesOfAuthor(factory);
      CacheManager manager = larderManager(factory);
      assertEquals(URI.create(uri), manager.getURI());
      Cache<Object, Object> books = manager.getCache(BOOKS_REGION);
      assertNotNull(books);
      assertEquals(1, entries(books));
      assertSame(books, manager.getCache(BOOKS_REGION));
    }
  }

  /** Hibernate strips {@code classpath://} (with two slashes) and looks the rest up. */
  @Test
  void aClasspathUriWithTwoSlashesWorks() throws Exception {
    try (SessionFactory factory = sessionFactory("classpath://larder-hibernate.properties", null)) {
      assertEquals(
          getClass().getClassLoader().getResource("larder-hibernate.properties").toURI(),
          larderManager(factory).getURI());
    }
  }

  /**
   * Hibernate resolves the URI itself (a URL, else a resource name after stripping {@code
   * classpath://}) and knows no {@code classpath:} scheme with a single colon: the README therefore
   * tells Hibernate users to give the plain resource name. This pins that behaviour down, so that
   * the README is corrected if it changes.
   */
  @Test
  void hibernateRejectsClasspathUris() {
    Exception e =
        assertThrows(
            Exception.class,
            () -> sessionFactory("classpath:larder-hibernate.properties", null).close());
    StringBuilder messages = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    assertTrue(messages.toString().contains("Couldn't load URI"), messages::toString);
  }
}
