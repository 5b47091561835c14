package dev.larder.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cache.CacheManager;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.cache.support.NoOpCacheManager;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.util.ClassUtils;

/**
 * Boot's own cache properties and failure reports, as a Boot user expects them with Larder: {@code
 * spring.cache.type}, {@code spring.cache.cache-names}, unknown {@code larder.*} keys and
 * "APPLICATION FAILED TO START" reports that name the property and the fix.
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringConventionsTest {

  private static final String[] BOOKS = {
    "larder.caches.books.key-type=java.lang.Long",
    "larder.caches.books.value-type=dev.larder.spring.Book"
  };

  @Test
  void cacheTypeNoneGivesANoOpManagerAndNothingIsCached() {
    try (ConfigurableApplicationContext context =
        Apps.start("spring.cache.type=none", BOOKS[0], BOOKS[1])) {
      assertInstanceOf(NoOpCacheManager.class, context.getBean(CacheManager.class));
      BookService service = context.getBean(BookService.class);
      service.find(1);
      service.find(1);
      assertEquals(2, service.lookups(), "no caching with spring.cache.type=none");
    }
  }

  @Test
  void anotherCacheTypeLeavesTheChoiceToBoot() {
    try (ConfigurableApplicationContext context = Apps.start("spring.cache.type=simple")) {
      assertInstanceOf(ConcurrentMapCacheManager.class, context.getBean(CacheManager.class));
    }
  }

  @Test
  void cacheNamesAreCreatedFromDefaultsAndAreTheOnlyCaches() {
    try (ConfigurableApplicationContext context =
        Apps.start(
            "spring.cache.cache-names=counts,labels",
            "larder.defaults.value-type=java.lang.String",
            "larder.defaults.maximum-entries=100",
            BOOKS[0],
            BOOKS[1])) {
      CacheManager manager = context.getBean(CacheManager.class);
      assertEquals(
          Set.of("books", "counts", "labels"),
          Set.copyOf(manager.getCacheNames()),
          "declared and named caches exist from start-up");
      assertNull(manager.getCache("other"), "with cache-names, no cache is made on the fly");
      assertEquals(
          100,
          ((dev.larder.Cache<?, ?>) manager.getCache("labels").getNativeCache())
              .maximumEntries()
              .getAsLong());
    }
  }

  @Test
  void cacheNamesWithoutDefaultsFailTheStartNamingBothProperties(CapturedOutput output) {
    assertThrows(Exception.class, () -> Apps.start("spring.cache.cache-names=counts"));
    assertTrue(output.toString().contains("APPLICATION FAILED TO START"), output.toString());
    assertTrue(
        output.toString().contains("spring.cache.cache-names names cache 'counts'"),
        output.toString());
    assertTrue(output.toString().contains("larder.defaults.value-type"), output.toString());
  }

  @Test
  void aMisspeltPropertyFailsTheStartNamingIt(CapturedOutput output) {
    Exception e =
        assertThrows(
            Exception.class,
            () -> Apps.start(BOOKS[0], BOOKS[1], "larder.caches.books.maximum-memroy=1MB"));
    assertTrue(Apps.chain(e).contains("larder.caches.books.maximum-memroy"), Apps.chain(e));
    assertTrue(output.toString().contains("APPLICATION FAILED TO START"), output.toString());
    Exception top = assertThrows(Exception.class, () -> Apps.start("larder.enabeld=false"));
    assertTrue(Apps.chain(top).contains("larder.enabeld"), Apps.chain(top));
  }

  @Test
  void aRefusedValueIsReportedWithTheCacheThePropertyAndTheFix(CapturedOutput output) {
    assertThrows(
        Exception.class,
        () -> Apps.start(BOOKS[0], BOOKS[1], "larder.caches.books.maximum-entries=-5"));
    String report = output.toString();
    assertTrue(report.contains("APPLICATION FAILED TO START"), report);
    assertTrue(
        report.contains(
            "cache 'books': larder.caches.books.maximum-entries=-5 is"
                + " refused: must be positive"),
        report);
    assertTrue(report.contains("Action:"), report);
    assertTrue(
        report.contains("Set larder.caches.books.maximum-entries to a positive number"), report);
    assertTrue(!report.contains("maximumEntries"), "no Java names in a properties report");
  }

  @Test
  void bothBoundsOrBothExpiriesAreRefusedNotSilentlyOverruled(CapturedOutput output) {
    assertThrows(
        Exception.class,
        () ->
            Apps.start(
                BOOKS[0],
                BOOKS[1],
                "larder.caches.books.maximum-entries=10",
                "larder.caches.books.maximum-memory=1MB"));
    assertTrue(output.toString().contains("a cache has one bound"), output.toString());
    assertThrows(
        Exception.class,
        () ->
            Apps.start(
                BOOKS[0],
                BOOKS[1],
                "larder.caches.books.expire-after-write=1m",
                "larder.caches.books.expire-after-access=1m"));
    assertTrue(
        output.toString().contains("larder.caches.books.expire-after-access"), output.toString());
  }

  @Test
  void aTooSmallByteBoundSaysTheMinimumInProperties(CapturedOutput output) {
    assertThrows(
        Exception.class,
        () -> Apps.start(BOOKS[0], BOOKS[1], "larder.caches.books.maximum-memory=1KB"));
    assertTrue(
        output.toString().contains("larder.caches.books.maximum-memory=1KB is refused"),
        output.toString());
    assertTrue(output.toString().contains("at least 64KB"), output.toString());
  }

  @Test
  void theStatisticsHintNamesTheProperty(CapturedOutput output) {
    try (ConfigurableApplicationContext context =
        Apps.start(BOOKS[0], BOOKS[1], "larder.caches.books.record-stats=false")) {
      assertNotNull(context.getBean(CacheManager.class).getCache("books"));
      assertTrue(
          output.toString().contains("set larder.caches.books.record-stats=true"),
          output.toString());
      assertTrue(!output.toString().contains("recordStats()"), output.toString());
    }
  }

  @Test
  @SuppressWarnings({"unchecked", "ReferenceEquality"}) // a proxy equals itself only
  void bootCacheManagerCustomizersAreApplied() throws Exception {
    // Boot 4's interface or Boot 3.5's, whichever the tests run on, as the starter finds it.
    String name =
        ClassUtils.isPresent(BOOT_4_CUSTOMIZER, null)
            ? BOOT_4_CUSTOMIZER
            : "org.springframework.boot.autoconfigure.cache.CacheManagerCustomizer";
    Class<Object> customizer = (Class<Object>) Class.forName(name);
    List<String> seen = new ArrayList<>();
    Object bean =
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {customizer},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "customize" -> {
                    seen.addAll(((CacheManager) args[0]).getCacheNames());
                    yield null;
                  }
                  case "hashCode" -> System.identityHashCode(proxy);
                  case "equals" -> proxy == args[0];
                  default -> "customizer";
                });
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(SampleApplication.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.main.banner-mode=off", "logging.level.root=warn", BOOKS[0], BOOKS[1])
            .initializers(
                c ->
                    ((GenericApplicationContext) c)
                        .registerBean("larderCustomizer", customizer, () -> bean))
            .run()) {
      assertInstanceOf(LarderCacheManager.class, context.getBean(CacheManager.class));
      assertEquals(List.of("books"), seen, "the customizer saw Larder's manager");
    }
  }

  private static final String BOOT_4_CUSTOMIZER =
      "org.springframework.boot.cache.autoconfigure.CacheManagerCustomizer";
}
