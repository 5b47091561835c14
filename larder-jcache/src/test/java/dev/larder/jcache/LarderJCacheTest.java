package dev.larder.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Storage;
import dev.larder.codec.Codecs;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.integration.CacheWriter;
import javax.cache.spi.CachingProvider;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Larder-specific behaviour of the JCache provider, beyond what the TCK checks. */
class LarderJCacheTest {

  private final CachingProvider provider =
      Caching.getCachingProvider(LarderCachingProvider.class.getName());
  private final CacheManager manager =
      provider.getCacheManager(URI.create("larder-jcache-test"), getClass().getClassLoader());

  @AfterEach
  void close() {
    manager.close();
  }

  /** A mutable, serializable value without a Larder codec. */
  static final class Box implements Serializable {
    private static final long serialVersionUID = 1L;
    String text;

    Box(String text) {
      this.text = text;
    }
  }

  /** A misfit key fails before it reaches a codec, naming the cache and the types. */
  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void keysOfTheWrongClassFailNamingTheCacheAndTheTypes() {
    Cache<Object, Object> typed =
        (Cache)
            manager.createCache(
                "typed",
                new LarderConfiguration<Long, String>().setTypes(Long.class, String.class));
    ClassCastException get = assertThrows(ClassCastException.class, () -> typed.get("one"));
    assertEquals(
        "cache 'typed': a key of class java.lang.String is not a java.lang.Long, the"
            + " configured key type",
        get.getMessage());
    assertThrows(ClassCastException.class, () -> typed.remove("one"));
    assertThrows(ClassCastException.class, () -> typed.getAll(java.util.Set.of("one")));
    ClassCastException put = assertThrows(ClassCastException.class, () -> typed.put(1L, 2));
    assertEquals(
        "cache 'typed': a value of class java.lang.Integer is not a java.lang.String,"
            + " the configured value type",
        put.getMessage());

    Cache<Object, Object> byCodec =
        manager.createCache(
            "byCodec",
            new LarderConfiguration<>()
                .setKeyCodec(
                    (dev.larder.codec.Codec<Object>)
                        (dev.larder.codec.Codec<?>) dev.larder.codec.Codecs.longs()));
    ClassCastException codec = assertThrows(ClassCastException.class, () -> byCodec.put("k", "v"));
    assertTrue(
        codec
            .getMessage()
            .startsWith(
                "cache 'byCodec': a key of class java.lang.String is"
                    + " not a java.lang.Long, the key codec's type"),
        codec.getMessage());
  }

  @Test
  void storeByValueKeepsCopiesAndStoreByReferenceKeepsTheObject() {
    Cache<String, Box> byValue =
        manager.createCache(
            "byValue", new MutableConfiguration<String, Box>().setTypes(String.class, Box.class));
    Box box = new Box("one");
    byValue.put("k", box);
    box.text = "changed";
    Box read = byValue.get("k");
    assertEquals("one", read.text);
    assertNotSame(read, byValue.get("k"));

    Cache<String, Box> byReference =
        manager.createCache(
            "byReference",
            new MutableConfiguration<String, Box>()
                .setTypes(String.class, Box.class)
                .setStoreByValue(false));
    byReference.put("k", box);
    assertSame(box, byReference.get("k"));
  }

  /**
   * A bounded store-by-value cache of immutable values (strings) has Larder's hot tier: a key read
   * often returns one shared instance, which no caller can change; an unbounded one has no tier and
   * decodes a copy for every read.
   */
  @Test
  void aBoundedCacheOfStringsSharesItsHotValues() {
    LarderConfiguration<String, String> bounded = new LarderConfiguration<>();
    bounded.setTypes(String.class, String.class);
    bounded.setMaximumEntries(1_000);
    Cache<String, String> hot = manager.createCache("hotStrings", bounded);
    hot.put("k", "value");
    assertTrue(sharedAfterReads(hot, "k"), "never the same instance twice");

    Cache<String, String> unbounded =
        manager.createCache(
            "coldStrings",
            new MutableConfiguration<String, String>().setTypes(String.class, String.class));
    unbounded.put("k", "value");
    assertFalse(sharedAfterReads(unbounded, "k"), "an unbounded cache shared an instance");
    assertEquals("value", unbounded.get("k"));
  }

  /** Returns whether two reads running returned one instance, within 100 reads. */
  @SuppressWarnings("ReferenceEquality") // one instance twice running means the hot tier served it
  private static boolean sharedAfterReads(Cache<String, String> cache, String key) {
    String last = cache.get(key);
    for (int i = 0; i < 100; i++) {
      String next = cache.get(key);
      if (next == last) {
        return true;
      }
      last = next;
    }
    return false;
  }

  /** Counts writes; must never see a write the cache then refuses. */
  static final class CountingWriter implements CacheWriter<Object, Object>, Serializable {
    private static final long serialVersionUID = 1L;
    static final AtomicInteger WRITES = new AtomicInteger();

    @Override
    public void write(Cache.Entry<?, ?> entry) {
      WRITES.incrementAndGet();
    }

    @Override
    public void writeAll(Collection<Cache.Entry<?, ?>> entries) {
      entries.forEach(this::write);
      entries.clear();
    }

    @Override
    public void delete(Object key) {}

    @Override
    public void deleteAll(Collection<?> keys) {
      keys.clear();
    }
  }

  @Test
  void unserializableValuesAreRefusedBeforeTheWriterSeesThem() {
    CountingWriter.WRITES.set(0);
    Cache<Object, Object> cache =
        manager.createCache(
            "writeThrough",
            new MutableConfiguration<Object, Object>()
                .setWriteThrough(true)
                .setCacheWriterFactory(FactoryBuilder.factoryOf(new CountingWriter())));
    assertThrows(IllegalArgumentException.class, () -> cache.put("k", new Object()));
    assertEquals(0, CountingWriter.WRITES.get());
    cache.put("k", "serializable");
    assertEquals(1, CountingWriter.WRITES.get());
  }

  /** A key type holding a set; its derived codec writes the set in canonical order. */
  public record TaggedKey(String name, Set<String> tags) implements Serializable {}

  @Test
  void keyCodecsThatMayEncodeEqualKeysDifferentlyAreRefusedAtCreation() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                manager.createCache(
                    "plainSetKeys",
                    new LarderConfiguration<Set<String>, String>()
                        .setKeyCodec(Codecs.set(Codecs.strings()))));
    assertTrue(e.getMessage().contains("not deterministic"), e.getMessage());
    Cache<TaggedKey, String> tagged =
        manager.createCache(
            "taggedKeys",
            new MutableConfiguration<TaggedKey, String>().setTypes(TaggedKey.class, String.class));
    tagged.put(new TaggedKey("x", new LinkedHashSet<>(List.of("a", "b"))), "v");
    assertEquals("v", tagged.get(new TaggedKey("x", new LinkedHashSet<>(List.of("b", "a")))));
    Cache<Set<String>, String> canonical =
        manager.createCache(
            "canonicalKeys",
            new LarderConfiguration<Set<String>, String>()
                .setKeyCodec(Codecs.canonicalSet(Codecs.strings())));
    canonical.put(new LinkedHashSet<>(List.of("a", "b")), "v");
    assertEquals("v", canonical.get(new LinkedHashSet<>(List.of("b", "a"))));
  }

  /** Conditional writes compare by equals, also where equal values serialize differently. */
  @Test
  void conditionalWritesMatchEqualValuesThatSerializeDifferently() {
    Cache<String, Object> cache =
        manager.createCache("serializedMaps", new MutableConfiguration<String, Object>());
    HashMap<String, Integer> stored = new HashMap<>(Map.of("a", 1, "b", 2));
    HashMap<String, Integer> equal = new HashMap<>(1024); // another capacity: other bytes
    equal.putAll(stored);
    cache.put("k", stored);
    assertTrue(cache.replace("k", equal, "replaced"));
    cache.put("k", stored);
    assertTrue(cache.remove("k", equal));
    cache.put("bytes", new byte[] {1, 2, 3});
    assertTrue(cache.remove("bytes", new byte[] {1, 2, 3}), "arrays still match by content");
  }

  @Test
  void byValueCachesUnwrapToTheLarderCache() {
    Cache<Long, String> cache =
        manager.createCache(
            "unwrap",
            new LarderConfiguration<Long, String>()
                .setStorage(Storage.HEAP)
                .setTypes(Long.class, String.class));
    cache.put(1L, "one");
    dev.larder.Cache<?, ?> larder = cache.unwrap(dev.larder.Cache.class);
    assertEquals(1, larder.estimatedSize());
    assertTrue(larder.memoryUsed() > 0);
    assertThrows(IllegalArgumentException.class, () -> cache.unwrap(String.class));
  }

  @Test
  void userCodecsAreUsed() {
    Cache<String, String> cache =
        manager.createCache(
            "codec",
            new LarderConfiguration<String, String>()
                .setValueCodec(new dev.larder.jcache.internal.UpperCaseCodec())
                .setTypes(String.class, String.class));
    cache.put("k", "quiet");
    assertEquals("QUIET", cache.get("k"));
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void theMemoryBoundHoldsAndEvictionsAreCounted() throws InterruptedException {
    long bound = 256 * 1024;
    Cache<Long, Object> cache =
        manager.createCache(
            "bounded",
            new LarderConfiguration<Long, Object>()
                .setMaximumMemory(bound)
                .setStorage(Storage.HEAP)
                .setStatisticsEnabled(true)
                .setTypes(Long.class, Object.class));
    for (long i = 0; i < 5000; i++) {
      cache.put(i, new ArrayList<>(Collections.nCopies(20, "value " + i)));
    }
    dev.larder.Cache<?, ?> larder = cache.unwrap(dev.larder.Cache.class);
    assertTrue(larder.memoryUsed() <= bound, larder.memoryUsed() + " > " + bound);
    assertTrue(larder.estimatedSize() < 5000);
    var statistics = cache.unwrap(dev.larder.jcache.internal.LarderJCache.class).statistics();
    while (statistics.getCacheEvictions() == 0) {
      Thread.sleep(10);
    }
    assertEquals(5000, statistics.getCachePuts());
  }

  /** Records the values of UPDATED events, in delivery order. */
  static final class RecordingListener
      implements CacheEntryUpdatedListener<String, Integer>,
          CacheEntryCreatedListener<String, Integer>,
          Serializable {
    private static final long serialVersionUID = 1L;
    static final List<Integer> SEEN = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends Integer>> events) {
      events.forEach(e -> SEEN.add(e.getValue()));
    }

    @Override
    public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends Integer>> events) {
      events.forEach(e -> SEEN.add(e.getValue()));
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void asynchronousListenersSeeEachKeysEventsInOrder() throws InterruptedException {
    RecordingListener.SEEN.clear();
    MutableConfiguration<String, Integer> config =
        new MutableConfiguration<String, Integer>()
            .setTypes(String.class, Integer.class)
            .addCacheEntryListenerConfiguration(
                new MutableCacheEntryListenerConfiguration<>(
                    FactoryBuilder.factoryOf(new RecordingListener()), null, false, false));
    Cache<String, Integer> cache = manager.createCache("async", config);
    int writes = 2000;
    for (int i = 0; i < writes; i++) {
      cache.put("k", i);
    }
    while (RecordingListener.SEEN.size() < writes) {
      Thread.sleep(5);
    }
    for (int i = 0; i < writes; i++) {
      assertEquals(i, RecordingListener.SEEN.get(i));
    }
  }

  /** Fails on every creation. */
  static final class FailingListener
      implements CacheEntryCreatedListener<String, String>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      throw new IllegalStateException("listener failure");
    }
  }

  @Test
  void synchronousListenerFailuresReachTheCallerAfterTheWrite() {
    MutableConfiguration<String, String> config =
        new MutableConfiguration<String, String>()
            .setTypes(String.class, String.class)
            .addCacheEntryListenerConfiguration(
                new MutableCacheEntryListenerConfiguration<>(
                    FactoryBuilder.factoryOf(new FailingListener()), null, false, true));
    Cache<String, String> cache = manager.createCache("failing", config);
    CacheEntryListenerException e =
        assertThrows(CacheEntryListenerException.class, () -> cache.put("k", "v"));
    assertTrue(e.getCause() instanceof IllegalStateException);
    assertEquals("v", cache.get("k"));
  }

  @Test
  void mxBeansAreRegisteredUnderTheStandardNamesAndRemovedOnClose() throws Exception {
    Cache<String, String> cache =
        manager.createCache(
            "managed",
            new MutableConfiguration<String, String>()
                .setStatisticsEnabled(true)
                .setManagementEnabled(true));
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName statistics =
        new ObjectName(
            "javax.cache:type=CacheStatistics,CacheManager=larder-jcache-test,Cache=managed");
    ObjectName configuration =
        new ObjectName(
            "javax.cache:type=CacheConfiguration,CacheManager=larder-jcache-test,Cache=managed");
    cache.put("a", "b");
    cache.get("a");
    assertEquals(1L, server.getAttribute(statistics, "CacheHits"));
    assertEquals(true, server.getAttribute(configuration, "StoreByValue"));
    cache.close();
    assertFalse(server.isRegistered(statistics));
    assertFalse(server.isRegistered(configuration));
  }
}
