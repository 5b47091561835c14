package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import dev.larder.codec.Codecs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cache built without joining ({@link ClusteredCacheBuilder#buildUnjoined}): refused until {@link
 * ClusteredCache#join}, its given store and journal untouched until then (so a durable member can
 * fill the store from its record in between), and serving what the store held once joined.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnjoinedCacheTest {

  private static final AtomicInteger CLUSTERS = new AtomicInteger();
  private static final int SEGMENTS = 32;

  private final String name =
      "unjoined-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
  private final List<ClusteredCache<byte[], byte[]>> members = new CopyOnWriteArrayList<>();

  /** A journal that counts every call made to it and mirrors the changes it hears. */
  private static final class CountingJournal implements StoreJournal {
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger epochReads = new AtomicInteger();
    final Map<String, String> stored = new ConcurrentHashMap<>();

    @Override
    public void stored(byte[] key, byte[] value) {
      calls.incrementAndGet();
      stored.put(text(key), text(value));
    }

    @Override
    public void removed(byte[] key) {
      calls.incrementAndGet();
      stored.remove(text(key));
    }

    @Override
    public void cleared() {
      calls.incrementAndGet();
      stored.clear();
    }

    @Override
    public void sync() {
      calls.incrementAndGet();
    }

    @Override
    public long[] recordedEpochs(int segments) {
      calls.incrementAndGet();
      epochReads.incrementAndGet();
      long[] e = new long[segments];
      Arrays.fill(e, 7);
      return e;
    }

    @Override
    public void recordEpochs(long[] epochs) {
      calls.incrementAndGet();
    }
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static Cache<byte[], byte[]> store() {
    return Cache.builder(Codecs.bytes(), Codecs.bytes()).maximumMemory(16 << 20).build();
  }

  private ClusteredCache<byte[], byte[]> unjoined(
      String node, Cache<byte[], byte[]> store, StoreJournal journal, int clusterSize) {
    ClusteredCache<byte[], byte[]> c =
        ClusteredCache.builder(Codecs.bytes(), Codecs.bytes())
            .maximumMemory(16 << 20)
            .localStore(store, journal)
            .cluster(
                ClusterConfig.builder()
                    .stack(Stacks.IN_PROCESS)
                    .clusterName(name)
                    .nodeName(node)
                    .mode(ClusterMode.REPLICATED)
                    .replication(Replication.SYNC)
                    .timeout(Duration.ofSeconds(10))
                    .segments(SEGMENTS)
                    .initialClusterSize(clusterSize)
                    .build())
            .buildUnjoined();
    members.add(c);
    return c;
  }

  @AfterEach
  void close() {
    members.forEach(ClusteredCache::close);
  }

  @Test
  void refusedUntilJoinedAndServesWhatItsStoreWasFilledWithMeanwhile() {
    Cache<byte[], byte[]> store = store();
    CountingJournal journal = new CountingJournal();
    ClusteredCache<byte[], byte[]> c = unjoined("m0", store, journal, 1);

    assertEquals("m0", c.nodeName());
    assertEquals(SEGMENTS, c.clusterConfig().segments());
    assertEquals(List.of(), c.members());
    assertThrows(IllegalStateException.class, () -> c.getIfPresent(bytes("k0")));
    assertThrows(IllegalStateException.class, () -> c.put(bytes("k0"), bytes("x")));
    assertThrows(IllegalStateException.class, () -> c.isLocalOwner(bytes("k0")));
    assertThrows(IllegalStateException.class, c::estimatedSize);

    // the member's record is loaded into its store between build and join
    for (int i = 0; i < 200; i++) {
      store.put(bytes("k" + i), bytes("v" + i));
    }
    assertEquals(0, journal.calls.get(), "the journal was used before the join");

    c.join();

    assertEquals(List.of("m0"), c.members());
    assertTrue(journal.epochReads.get() > 0, "the recovered epochs were read at the join");
    for (int i = 0; i < 200; i++) {
      byte[] v = c.getIfPresent(bytes("k" + i));
      assertEquals("v" + i, v == null ? null : text(v), "k" + i);
    }
    c.put(bytes("new"), bytes("value"));
    assertEquals("value", journal.stored.get("new"), "a write after the join reached the journal");
    assertThrows(IllegalStateException.class, c::join, "a second join");
  }

  @Test
  void closeEndsAJoinStillWaitingForMembers() throws Exception {
    ClusteredCache<byte[], byte[]> c = unjoined("m0", store(), new CountingJournal(), 2);
    CompletableFuture<Throwable> joined = new CompletableFuture<>();
    Thread joiner =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    c.join();
                    joined.complete(null);
                  } catch (Throwable t) {
                    joined.complete(t);
                  }
                });
    // whether the close comes before the join connects or while it waits, the join ends
    c.close();
    Throwable t = joined.get(30, TimeUnit.SECONDS);
    joiner.join(TimeUnit.SECONDS.toMillis(30));
    assertNotNull(t, "a join of a closed cache returned normally");
    assertTrue(
        t instanceof ClusterException || t instanceof IllegalStateException,
        "unexpected failure: " + t);
    assertThrows(IllegalStateException.class, () -> c.getIfPresent(bytes("k")));
  }
}
