package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Blind writers racing an open set: threads changing a set through its commands (so it opens and
 * stays open) beside threads that SET, DEL and read it generically. Whatever the interleaving,
 * every command sees a whole value, and once the writers are done no chunk is left that no head
 * names. The blind thread opens the set itself and makes its first blind write while the set is
 * open, before the set's writers start: so at least one blind write meets an open set, whatever the
 * interleaving after that (the test asserts it). It assumes no interleaving.
 */
class OpenCollectionsRaceTest {
  private static final byte[] KEY = "race".getBytes(StandardCharsets.UTF_8);
  private final AtomicLong now = new AtomicLong(1_000_000);

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void blindWritesRacingAnOpenSetLeaveNoOrphanChunk() throws Exception {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      ks.openCollections().openAfter(1);
      byte[] stored = Keyspace.storedKey(0, KEY);
      CountDownLatch firstBlindWrite = new CountDownLatch(1);
      AtomicInteger blindWhileOpen = new AtomicInteger();
      AtomicInteger servedOpen = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(3);
      try {
        List<Future<?>> work = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
          int writer = w;
          work.add(
              pool.submit(
                  () -> {
                    assertTrue(firstBlindWrite.await(120, TimeUnit.SECONDS), "the race began");
                    for (int i = 0; i < 1_500; i++) {
                      int n = i;
                      ks.editSet(
                          0,
                          KEY,
                          (before, set) -> {
                            if (set == null) {
                              return null; // a string is there now: nothing to add to
                            }
                            if (ks.openCollections().get(stored) != null) {
                              servedOpen.incrementAndGet(); // this command runs on the open set
                            }
                            for (int k = 0; k < 20; k++) {
                              set.add(b("m:" + writer + ":" + (n * 20 + k)));
                            }
                            return null;
                          });
                    }
                    return null;
                  }));
        }
        work.add(
            pool.submit(
                () -> {
                  try {
                    openSet(ks);
                    assertTrue(ks.openCollections().get(stored) != null, "still open");
                    blindWhileOpen.incrementAndGet();
                    ks.putString(0, KEY, b("the first blind write"));
                  } finally {
                    firstBlindWrite.countDown(); // even if opening failed, so that the writers end
                  }
                  for (int i = 1; i < 300; i++) {
                    if (ks.openCollections().get(stored) != null) {
                      blindWhileOpen.incrementAndGet();
                    }
                    switch (i % 3) {
                      case 0 -> ks.putString(0, KEY, b("string " + i));
                      case 1 -> ks.delete(0, KEY);
                      default -> {
                        StoredValue v = ks.peek(0, KEY);
                        if (v != null && v.type() == ValueType.SET) {
                          assertTrue(SetPayload.size(v.payload()) > 0, "a whole set");
                        }
                      }
                    }
                  }
                }));
        for (Future<?> f : work) {
          f.get(300, TimeUnit.SECONDS); // a worker's failure fails the test
        }
      } finally {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "workers ended");
      }
      assertTrue(blindWhileOpen.get() >= 1, "a blind write raced an open set");
      assertTrue(servedOpen.get() >= 1, "the writers changed the set open");
      ChunkCensus census = ChunkCensus.of(ks);
      assertEquals(0, census.orphans(), "no chunk left that no head names");
      ks.delete(0, KEY);
      assertEquals(0, ChunkCensus.of(ks).total(), "deleted whole");
      assertEquals(0, ks.openCollectionStats()[0], "nothing open");
    }
  }

  /**
   * A blind write replaces an open set's head while another thread changes the set; a third thread
   * that sees the write in the store (the key's type, read without closing anything) must never
   * have a set command served from the replaced set after that: the command runs after the write in
   * real time, so it must find the string.
   */
  @Test
  void aCommandThatFollowsABlindWriteNeverSeesTheReplacedSet() throws Exception {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      ks.openCollections().openAfter(1);
      byte[] stored = Keyspace.storedKey(0, KEY);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      AtomicInteger servedOpen = new AtomicInteger();
      try {
        for (int round = 0; round < 60; round++) {
          ks.delete(0, KEY);
          openSet(ks);
          AtomicBoolean over = new AtomicBoolean();
          CountDownLatch running = new CountDownLatch(2);
          Future<?> changer =
              pool.submit(
                  () -> {
                    running.countDown();
                    for (int i = 0; i < 1_000_000 && !over.get(); i++) {
                      int n = i;
                      ks.editSet(
                          0,
                          KEY,
                          (before, set) -> {
                            if (set != null && ks.openCollections().get(stored) != null) {
                              servedOpen.incrementAndGet();
                            }
                            if (set != null) {
                              set.add(b("changer:" + n));
                            }
                            return null;
                          });
                    }
                    return null;
                  });
          Future<?> follower =
              pool.submit(
                  () -> {
                    running.countDown();
                    for (int i = 0; i < 10_000_000; i++) {
                      StoredValue seen = ks.peekType(0, KEY);
                      if (seen != null && seen.type() == ValueType.STRING) {
                        Boolean old =
                            ks.readSet(
                                0,
                                KEY,
                                (before, set) -> set == null ? null : set.contains(b("opening:0")));
                        assertNull(old, "a set command after the blind write found the old set");
                        return null;
                      }
                    }
                    throw new AssertionError("the blind write was never seen");
                  });
          assertTrue(running.await(60, TimeUnit.SECONDS), "both threads started");
          ks.putString(0, KEY, b("blind " + round));
          follower.get(120, TimeUnit.SECONDS); // its failure fails the test
          over.set(true);
          changer.get(120, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "workers ended");
      }
      assertTrue(servedOpen.get() >= 1, "the set was changed open while the writes raced");
      assertEquals(0, ChunkCensus.of(ks).orphans(), "no chunk left that no head names");
    }
  }

  /**
   * The window the race above rarely meets, made step by step: a blind write announced, the store
   * written, its follow-up (the old head's release) not yet run. A command in that window must find
   * the write, also when a command ran on the open set between the announcement and the store's
   * write.
   */
  @Test
  void aCommandBetweenABlindWriteAndItsReleaseFindsTheWrite() {
    try (Keyspace ks = new Keyspace(64 << 20, now::get)) {
      ks.openCollections().openAfter(1);
      byte[] stored = Keyspace.storedKey(0, KEY);
      openSet(ks);
      ks.editSet(0, KEY, (before, set) -> set.add(b("x"))); // served open: its mark is clear
      OpenCollections tier = ks.openCollections();
      int slot = tier.blindWriteBegins(stored);
      try {
        boolean before = ks.readSet(0, KEY, (v, set) -> set != null && set.contains(b("x")));
        assertTrue(before, "announced, not written yet: still the set");
        assertTrue(tier.get(stored) != null, "still open");
        byte[] old = ks.cache().asMap().put(stored, ValueLayout.encodeString(1, b("blind")));
        assertTrue(old != null && ChunkStore.isHeadValue(old), "the set's head was replaced");
        Boolean after =
            ks.readSet(0, KEY, (v, set) -> set == null ? null : set.contains(b("opening:0")));
        assertNull(after, "a set command after the store's write found the old set");
        assertNull(tier.get(stored), "the replaced set was dropped");
      } finally {
        tier.blindWriteDone(slot);
      }
    }
  }

  /** Makes the set chunked, then changes it until it opens (bounded); asserts that it opened. */
  private static void openSet(Keyspace ks) {
    byte[] stored = Keyspace.storedKey(0, KEY);
    for (int i = 0; i < 1_000 && ks.openCollections().get(stored) == null; i++) {
      int n = i;
      ks.editSet(
          0,
          KEY,
          (before, set) -> {
            for (int k = 0; k < 50; k++) {
              set.add(b("opening:" + (n * 50 + k)));
            }
            return null;
          });
    }
    assertTrue(ks.openCollections().get(stored) != null, "the set opened");
  }
}
