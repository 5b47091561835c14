package dev.larder.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Storage;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.spi.CachingProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configuration file addressed by a cache manager's URI. */
class ConfigurationFileTest {

  private final CachingProvider provider =
      Caching.getCachingProvider(LarderCachingProvider.class.getName());
  private final ClassLoader loader = getClass().getClassLoader();

  private final List<CacheManager> opened = new ArrayList<>();

  @AfterEach
  void closeManagers() {
    opened.forEach(CacheManager::close);
  }

  private CacheManager manager(String uri) {
    return open(URI.create(uri));
  }

  private CacheManager open(URI uri) {
    CacheManager manager = provider.getCacheManager(uri, loader);
    opened.add(manager);
    return manager;
  }

  @Test
  void declaredCacheIsCreatedOnFirstGetWithTheFileSettings() {
    CacheManager manager = manager("classpath:larder-test.properties");
    Cache<String, String> sessions = manager.getCache("sessions", String.class, String.class);
    assertNotNull(sessions);
    @SuppressWarnings("unchecked")
    LarderConfiguration<String, String> config =
        sessions.getConfiguration(LarderConfiguration.class);
    assertEquals(1L << 20, config.getMaximumMemory());
    assertEquals(Storage.HEAP, config.getStorage());
    assertTrue(config.isStatisticsEnabled());
    ExpiryPolicy policy = config.getExpiryPolicyFactory().create();
    assertTrue(policy instanceof AccessedExpiryPolicy);
    assertEquals(new Duration(TimeUnit.MINUTES, 30), policy.getExpiryForAccess());
    sessions.put("a", "b");
    assertEquals("b", sessions.get("a"));
    assertSame(sessions, manager.getCache("sessions"));
  }

  @Test
  void cacheNamesMayContainDots() {
    CacheManager manager = manager("classpath:larder-test.properties");
    Cache<Long, Object> users = manager.getCache("users.by.id", Long.class, Object.class);
    @SuppressWarnings("unchecked")
    LarderConfiguration<Long, Object> config = users.getConfiguration(LarderConfiguration.class);
    assertEquals(1000, config.getMaximumEntries());
    assertEquals(Storage.HEAP, config.getStorage(), "default.storage applies");
  }

  @Test
  @SuppressWarnings("UnnecessaryStringBuilder") // a mutable value, to see it stored by reference
  void storeByReferenceFromTheFile() {
    Cache<Object, Object> refs = manager("classpath:larder-test.properties").getCache("refs");
    StringBuilder value = new StringBuilder("mutable");
    refs.put("k", value);
    assertSame(value, refs.get("k"));
  }

  @Test
  void aPlainConfigurationFromCodeIsCompletedByTheFile() {
    CacheManager manager = manager("classpath:larder-test.properties");
    Cache<String, String> other =
        manager.createCache(
            "fromCode",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    @SuppressWarnings("unchecked")
    LarderConfiguration<String, String> otherConfig =
        other.getConfiguration(LarderConfiguration.class);
    assertEquals(Storage.HEAP, otherConfig.getStorage(), "default.storage applies");
    assertFalse(otherConfig.isStatisticsEnabled());

    Cache<String, String> sessions =
        manager.createCache(
            "sessions",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    @SuppressWarnings("unchecked")
    LarderConfiguration<String, String> config =
        sessions.getConfiguration(LarderConfiguration.class);
    assertTrue(config.isStatisticsEnabled(), "cache.sessions.statistics applies");
    assertEquals(1L << 20, config.getMaximumMemory());
  }

  @Test
  void aLarderConfigurationFromCodeIsUsedAsItIs() {
    CacheManager manager = manager("classpath:larder-test.properties");
    Cache<String, String> cache =
        manager.createCache(
            "sessions", new LarderConfiguration<String, String>().setStorage(Storage.OFF_HEAP));
    @SuppressWarnings("unchecked")
    LarderConfiguration<String, String> config = cache.getConfiguration(LarderConfiguration.class);
    assertEquals(Storage.OFF_HEAP, config.getStorage());
    assertEquals(LarderConfiguration.UNBOUNDED, config.getMaximumMemory());
  }

  /**
   * A cache the file configures without saying whether to count statistics gets one warning when it
   * is created (Micrometer's meters would stay at 0); saying it either way, or having no file, is
   * silent.
   */
  @Test
  void aCacheWithStatisticsLeftUnsetLogsOneWarning() throws Exception {
    String path = Path.of(loader.getResource("larder-test.properties").toURI()).toString();
    java.util.logging.Logger log = java.util.logging.Logger.getLogger("dev.larder.jcache");
    List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.logging.Handler handler =
        new java.util.logging.Handler() {
          @Override
          public void publish(java.util.logging.LogRecord record) {
            warnings.add(new java.util.logging.SimpleFormatter().formatMessage(record));
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    log.addHandler(handler);
    try {
      CacheManager manager = manager("classpath:larder-test.properties");
      manager.getCache("sessions"); // statistics = true in the file
      assertEquals(List.of(), warnings);
      manager.getCache("users.by.id");
      manager.getCache("users.by.id");
      assertEquals(1, warnings.size(), warnings::toString);
      assertTrue(
          warnings
                  .get(0)
                  .startsWith(
                      "cache 'users.by.id' of cache manager"
                          + " classpath:larder-test.properties: statistics are off")
              && warnings
                  .get(0)
                  .contains("set cache.users.by.id.statistics (or default.statistics) in " + path),
          warnings.get(0));
      manager.createCache("fromCode", new MutableConfiguration<>());
      assertEquals(2, warnings.size(), "caches created in code are completed by the file too");
      manager("no-file").createCache("plain", new MutableConfiguration<>());
      assertEquals(2, warnings.size(), "no file, no warning (the TCK's managers)");
    } finally {
      log.removeHandler(handler);
    }
  }

  @Test
  void undeclaredNamesAreAbsent() {
    assertNull(manager("classpath:larder-test.properties").getCache("nope"));
  }

  @Test
  void fileUrlsWorkLikeSpringResourceUris() throws Exception {
    URI fileUri = loader.getResource("larder-test.properties").toURI();
    CacheManager manager = open(fileUri);
    assertNotNull(manager.getCache("sessions", String.class, String.class));
  }

  @Test
  void theDefaultUriReadsTheDefaultResourceWhenPresent(@TempDir Path dir) throws Exception {
    Files.writeString(
        dir.resolve(LarderCachingProvider.DEFAULT_RESOURCE),
        "larder.jcache.format = 1\ncache.fromDefault.storage = HEAP\n");
    try (URLClassLoader withFile = new URLClassLoader(new URL[] {dir.toUri().toURL()}, loader)) {
      CacheManager manager = provider.getCacheManager(provider.getDefaultURI(), withFile);
      opened.add(manager);
      assertEquals(URI.create(LarderCachingProvider.DEFAULT_URI), manager.getURI());
      Cache<Object, Object> cache = manager.getCache("fromDefault");
      @SuppressWarnings("unchecked")
      LarderConfiguration<Object, Object> config =
          cache.getConfiguration(LarderConfiguration.class);
      assertEquals(Storage.HEAP, config.getStorage());
    }
  }

  @Test
  void plainNamesCarryNoFile() {
    CacheManager manager = manager("just-a-name");
    assertNull(manager.getCache("sessions"));
  }

  @Test
  void missingClasspathFileFails() {
    CacheException e =
        assertThrows(CacheException.class, () -> manager("classpath:absent.properties"));
    assertTrue(e.getMessage().contains("absent.properties"), e.getMessage());
  }

  @Test
  void misspelledSettingFailsNamingItTheFileAndTheLine() throws Exception {
    CacheException e =
        assertThrows(CacheException.class, () -> manager("classpath:larder-bad-key.properties"));
    String path = Path.of(loader.getResource("larder-bad-key.properties").toURI()).toString();
    assertTrue(e.getMessage().startsWith(path + ", line 2: "), e.getMessage());
    assertTrue(e.getMessage().contains("maximumMemroy"), e.getMessage());
  }

  /** A bad value is reported when the manager is created, with its file and line. */
  @Test
  void aBadValueFailsTheManagersCreationNamingTheFileAndTheLine(@TempDir Path dir)
      throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("bad-value.properties"),
            """
        larder.jcache.format = 1
        # the books cache
        cache.books.storage = HEAP
        cache.books.maximumEntries = 3x
        """);
    CacheException e = assertThrows(CacheException.class, () -> open(file.toUri()));
    assertEquals(
        file
            + ", line 4 (cache.books.maximumEntries): cache 'books': bad"
            + " maximumEntries '3x': not a number",
        e.getMessage());
  }

  @Test
  void aBadDefaultFailsAtStartUpEvenWithoutDeclaredCaches(@TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("bad-default.properties"),
            "larder.jcache.format = 1\ndefault.expiry = sometimes:1s\n");
    CacheException e = assertThrows(CacheException.class, () -> open(file.toUri()));
    assertTrue(
        e.getMessage()
            .startsWith(
                file + ", line 2 (default.expiry): the defaults: bad" + " expiry 'sometimes:1s'"),
        e.getMessage());
  }

  @Test
  void aMissingLoaderClassFailsAtStartUp(@TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("bad-loader.properties"),
            "larder.jcache.format = 1\ncache.a.loader = com.example.Absent\n");
    CacheException absent = assertThrows(CacheException.class, () -> open(file.toUri()));
    assertTrue(
        absent.getMessage().contains("line 2 (cache.a.loader)")
            && absent.getMessage().contains("class not found"),
        absent.getMessage());
    Files.writeString(file, "larder.jcache.format = 1\ncache.b.loader = java.lang.String\n");
    CacheException notALoader = assertThrows(CacheException.class, () -> open(file.toUri()));
    assertTrue(
        notALoader
            .getMessage()
            .contains("does not implement javax.cache.integration" + ".CacheLoader"),
        notALoader.getMessage());
  }

  @Test
  void missingFormatVersionFails() {
    CacheException e =
        assertThrows(CacheException.class, () -> manager("classpath:larder-no-version.properties"));
    assertTrue(e.getMessage().contains("larder.jcache.format"), e.getMessage());
  }
}
