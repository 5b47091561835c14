package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.testing.Workers;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.LogDirectoryLockedException;
import dev.larder.wal.LogStats;
import dev.larder.wal.RecoveryReport;
import dev.larder.wal.WalConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class DurabilityTest {

  static final TxCacheSpec<String, Long> ACCOUNTS =
      TxCacheSpec.of("accounts", Codecs.strings(), Codecs.longs());
  static final TxCacheSpec<Long, String> NOTES =
      TxCacheSpec.of("notes", Codecs.longs(), Codecs.strings());

  @TempDir Path dir;

  private TxStore open(FsyncPolicy policy) {
    return TxStore.builder()
        .cache(ACCOUNTS)
        .cache(NOTES)
        .persistence(dir)
        .fsync(policy)
        .checkpointEvery(Duration.ZERO)
        .build();
  }

  @Test
  void everyPolicyKeepsCommitsAcrossACleanReopen() {
    for (FsyncPolicy policy :
        List.of(
            FsyncPolicy.always(), FsyncPolicy.none(), FsyncPolicy.interval(Duration.ofMillis(5)))) {
      try (TxStore store = open(policy)) {
        TxCache<String, Long> accounts = store.cache(ACCOUNTS);
        accounts.put("a-" + policy, 1L);
        store.inTransaction(
            tx -> {
              tx.put(store.cache(NOTES), 1L, "note " + policy);
              tx.remove(accounts, "gone");
              return null;
            });
      }
      try (TxStore store = open(policy)) {
        assertEquals(1L, store.cache(ACCOUNTS).get("a-" + policy));
        assertEquals("note " + policy, store.cache(NOTES).get(1L));
        assertFalse(store.recovery().orElseThrow().lostAnything());
      }
    }
  }

  @Test
  void checkpointWhileWritingThenRecoverFromItAndTheLogAfterIt() throws Exception {
    try (TxStore store = open(FsyncPolicy.always())) {
      TxCache<String, Long> accounts = store.cache(ACCOUNTS);
      for (long i = 0; i < 200; i++) {
        accounts.put("k" + i, i);
      }
      accounts.remove("k7");
      long c1;
      try (Workers writer = Workers.named("writer")) {
        writer.start(
            () -> {
              for (long i = 200; i < 400; i++) {
                accounts.put("k" + (i % 250), i);
              }
            });
        c1 = store.checkpoint();
        writer.join(Duration.ofSeconds(60));
      }
      long c2 = store.checkpoint();
      assertTrue(c2 >= c1);
      accounts.put("after", 1L);
      LogStats stats = store.logStats().orElseThrow();
      assertEquals(2, stats.checkpoints());
    }
    try (Stream<Path> files = Files.list(dir)) {
      List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
      assertEquals(1, names.stream().filter(n -> n.endsWith(".ckp")).count(), names.toString());
    }
    try (TxStore store = open(FsyncPolicy.always())) {
      RecoveryReport report = store.recovery().orElseThrow();
      assertTrue(report.checkpointSequence() > 0);
      assertTrue(report.recordsReplayed() >= 1);
      TxCache<String, Long> accounts = store.cache(ACCOUNTS);
      for (long i = 0; i < 250; i++) {
        long expected = lastWritten(i);
        assertEquals(expected == -1 ? null : expected, accounts.get("k" + i), "k" + i);
      }
      assertEquals(1L, accounts.get("after"));
    }
  }

  /** The last value written to "k" + i by the test above, or -1 if removed. */
  private static long lastWritten(long i) {
    long last = i == 7 ? -1 : i;
    for (long v = 200; v < 400; v++) {
      if (v % 250 == i) {
        last = v;
      }
    }
    return last;
  }

  @Test
  void aSecondStoreOnTheDirectoryIsRefused() {
    try (TxStore store = open(FsyncPolicy.always())) {
      store.cache(ACCOUNTS).put("a", 1L);
      LogDirectoryLockedException e =
          assertThrows(LogDirectoryLockedException.class, () -> open(FsyncPolicy.always()));
      assertTrue(e.getMessage().contains("lock"), e.getMessage());
    }
  }

  @Test
  void reopeningWithDifferentCachesIsRefusedButAddingOneIsFine() {
    try (TxStore store = open(FsyncPolicy.always())) {
      store.cache(ACCOUNTS).put("a", 1L);
    }
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> TxStore.builder().cache(NOTES).cache(ACCOUNTS).persistence(dir).build());
    assertTrue(e.getMessage().contains("[accounts, notes]"), e.getMessage());
    TxCacheSpec<String, String> extra = TxCacheSpec.of("extra", Codecs.strings(), Codecs.strings());
    try (TxStore store =
        TxStore.builder().cache(ACCOUNTS).cache(NOTES).cache(extra).persistence(dir).build()) {
      assertEquals(1L, store.cache(ACCOUNTS).get("a"));
      assertNull(store.cache(extra).get("x"));
    }
  }

  @Test
  void concurrentCommitsUnderAlwaysShareForces() throws Exception {
    try (TxStore store = open(FsyncPolicy.always())) {
      TxCache<String, Long> accounts = store.cache(ACCOUNTS);
      try (Workers committers = Workers.named("committer")) {
        committers.start(
            16,
            id -> {
              for (long i = 0; i < 50; i++) {
                accounts.put("t" + id + "-" + i, i);
              }
            });
        committers.join(Duration.ofSeconds(60));
      }
      LogStats stats = store.logStats().orElseThrow();
      assertEquals(800, stats.records());
      assertTrue(stats.recordsPerForce() > 1.0, stats.toString());
    }
  }

  @Test
  void walConfigCarriesThePolicy() {
    WalConfig config = WalConfig.of(dir).withPolicy(FsyncPolicy.parse("interval(20)"));
    assertEquals("interval(20ms)", config.policy().toString());
    assertThrows(IllegalArgumentException.class, () -> FsyncPolicy.parse("sometimes"));
  }
}
