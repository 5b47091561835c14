package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.larder.codec.Codecs;
import dev.larder.testing.Workers;
import dev.larder.wal.WalConfig;
import dev.larder.wal.testing.SimulatedDisk;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Runs random concurrent transactions, records every one (snapshot, commit sequence, what each read
 * saw, what it wrote, or the conflict that failed it), and checks the history: under serializable,
 * replaying the committed transactions one at a time in commit order must give every transaction
 * exactly the values it read; under snapshot isolation, every transaction must have read the state
 * of its snapshot and no two overlapping committed transactions may have written the same key.
 * Every conflict reported must name a key a later commit really wrote.
 *
 * <p>With blind writes, half the threads put and remove outside any transaction (each a commit of
 * its own, placed at its sequence) while the other half run short transactions, so that blind
 * writes often find no snapshot registered and take the fast path while transactions begin beside
 * them (docs/design/transactions.md, "Blind writes on the fast path").
 */
@Timeout(120)
class HistoryCheckerTest {

  static final TxCacheSpec<String, Long> KV =
      TxCacheSpec.of("kv", Codecs.strings(), Codecs.longs());
  private static final int KEYS = 12;
  private static final int THREADS = 6;
  private static final int PER_THREAD = 400;

  /**
   * How long a client keeps going past its share while no conflict has been seen: on a loaded
   * machine with few cores, the scheduler can run each client's short transactions back to back
   * within its time slices, and a fixed count then tests no concurrency.
   */
  private static final long UNTIL_A_CONFLICT_NANOS = TimeUnit.SECONDS.toNanos(30);

  /** One transaction as it happened. */
  record Txn(
      long snapshot,
      long commit,
      Map<String, Long> reads,
      Map<String, Long> writes,
      List<TransactionConflictException.ConflictingKey> conflicts) {
    boolean committed() {
      return conflicts == null;
    }

    boolean updates() {
      return !writes.isEmpty();
    }
  }

  @ParameterizedTest
  @CsvSource({
    "SERIALIZABLE,false,false",
    "SNAPSHOT,false,false",
    "SERIALIZABLE,true,false",
    "SNAPSHOT,true,false",
    "SERIALIZABLE,false,true",
    "SNAPSHOT,false,true",
    "SERIALIZABLE,true,true"
  })
  void recordedHistoryIsSerializableOrSnapshotIsolated(
      Isolation level, boolean durable, boolean blind) throws Exception {
    SimulatedDisk disk = new SimulatedDisk();
    WalConfig wal = WalConfig.of(Path.of("/sim")).withFiles(disk).withSegmentBytes(8192);
    TxStore.Builder builder = TxStore.builder().cache(KV).isolation(level);
    if (durable) {
      builder.persistence(wal).checkpointEvery(java.time.Duration.ZERO);
    }
    List<Txn> history = Collections.synchronizedList(new ArrayList<>());
    Map<String, Long> finalState;
    try (TxStore store = builder.build()) {
      TxCache<String, Long> kv = store.cache(KV);
      AtomicBoolean running = new AtomicBoolean(true);
      try (Workers checkpointer = Workers.named("checkpointer");
          Workers clients = Workers.named("client")) {
        checkpointer.start(
            () -> {
              while (durable && running.get()) {
                store.checkpoint();
                Thread.onSpinWait();
              }
            });
        // The clients start together: started one by one, each could finish its transactions
        // before the next began on a fast machine, and the run would test no concurrency.
        CyclicBarrier startTogether = new CyclicBarrier(THREADS);
        AtomicBoolean conflicted = new AtomicBoolean();
        clients.start(
            THREADS,
            id -> {
              startTogether.await(30, TimeUnit.SECONDS);
              if (blind && id % 2 == 0) {
                runBlind(store, kv, id, history);
              } else {
                run(store, kv, id, history, blind ? 2 : 4, blind, conflicted);
              }
            });
        try {
          clients.join(java.time.Duration.ofMinutes(2));
        } finally {
          running.set(false);
        }
        checkpointer.join(java.time.Duration.ofSeconds(30));
      }
      finalState = new HashMap<>();
      for (int k = 0; k < KEYS; k++) {
        finalState.put("k" + k, kv.get("k" + k));
      }
    }
    long commits = history.stream().filter(t -> t.committed() && t.updates()).count();
    long conflicts = history.stream().filter(t -> !t.committed()).count();
    assertTrue(commits > PER_THREAD, "too few commits: " + commits);
    if (!blind) {
      // (With blind writes, the short transactions may all miss each other on a busy machine.)
      assertTrue(conflicts > 0, "no conflicts: the run did not test concurrency");
    }
    Map<String, Long> replayed =
        level == Isolation.SERIALIZABLE
            ? checkSerializable(history)
            : checkSnapshotIsolation(history);
    checkConflictsAreReal(history);
    assertEquals(replayed, finalState);
    if (durable) {
      try (TxStore reopened = TxStore.builder().cache(KV).persistence(wal).build()) {
        for (int k = 0; k < KEYS; k++) {
          assertEquals(finalState.get("k" + k), reopened.cache(KV).get("k" + k));
        }
      }
    }
  }

  /** Blind puts and removals, each recorded as a transaction that read nothing. */
  private static void runBlind(TxStore store, TxCache<String, Long> kv, int thread, List<Txn> out) {
    Random random = new Random(thread * 7919L);
    for (int i = 0; i < PER_THREAD; i++) {
      String key = "k" + random.nextInt(KEYS);
      Long value = random.nextInt(10) == 0 ? null : thread * 1_000_000L + i * 10L;
      long commit = store.commitBlind(kv, key, value);
      Map<String, Long> writes = new HashMap<>();
      writes.put(key, value);
      // Placed at its commit point: its snapshot is the commit before it.
      out.add(new Txn(commit - 1, commit, Map.of(), writes, null));
    }
  }

  private static void run(
      TxStore store,
      TxCache<String, Long> kv,
      int thread,
      List<Txn> out,
      int maxOps,
      boolean stopAtShare,
      AtomicBoolean conflicted) {
    Random random = new Random(thread * 7919L);
    long giveUp = System.nanoTime() + UNTIL_A_CONFLICT_NANOS;
    for (int i = 0;
        i < PER_THREAD || (!stopAtShare && !conflicted.get() && System.nanoTime() - giveUp < 0);
        i++) {
      Map<String, Long> reads = new HashMap<>();
      Map<String, Long> writes = new HashMap<>();
      Transaction tx = store.begin();
      int ops = 1 + random.nextInt(maxOps);
      for (int op = 0; op < ops; op++) {
        String key = "k" + random.nextInt(KEYS);
        if (random.nextInt(10) < 6) {
          Long seen = tx.get(kv, key);
          if (writes.containsKey(key)) {
            check(Objects.equals(writes.get(key), seen), "own write not seen");
          } else if (reads.containsKey(key)) {
            check(Objects.equals(reads.get(key), seen), "non-repeatable read");
          } else {
            reads.put(key, seen);
          }
        } else if (random.nextInt(10) == 0) {
          tx.remove(kv, key);
          writes.put(key, null);
        } else {
          long value = thread * 1_000_000L + i * 10L + op;
          tx.put(kv, key, value);
          writes.put(key, value);
        }
        if (random.nextInt(8) == 0) {
          // Lets another client commit inside this transaction even when the clients share one
          // core.
          LockSupport.parkNanos(1_000);
        }
      }
      try {
        long commit = tx.commit();
        out.add(new Txn(tx.snapshot(), commit, reads, writes, null));
      } catch (TransactionConflictException e) {
        out.add(new Txn(tx.snapshot(), -1, reads, writes, e.keys()));
        conflicted.set(true);
      }
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  /** Replays update transactions in commit order; read-only ones at their snapshot. */
  private static Map<String, Long> checkSerializable(List<Txn> history) {
    List<Txn> updates = committedUpdatesInOrder(history);
    List<Txn> readOnly =
        history.stream()
            .filter(t -> t.committed() && !t.updates())
            .sorted(Comparator.comparingLong(Txn::snapshot))
            .toList();
    Map<String, Long> state = new HashMap<>();
    int r = 0;
    for (Txn t : updates) {
      while (r < readOnly.size() && readOnly.get(r).snapshot() < t.commit()) {
        assertReads(readOnly.get(r++), state, "read-only transaction");
      }
      assertReads(t, state, "serial replay in commit order");
      t.writes().forEach(state::put);
    }
    while (r < readOnly.size()) {
      assertReads(readOnly.get(r++), state, "read-only transaction");
    }
    return withoutNulls(state);
  }

  /** Checks snapshot reads and first-committer-wins. */
  private static Map<String, Long> checkSnapshotIsolation(List<Txn> history) {
    List<Txn> updates = committedUpdatesInOrder(history);
    List<Txn> all =
        history.stream()
            .filter(Txn::committed)
            .sorted(Comparator.comparingLong(Txn::snapshot))
            .toList();
    Map<String, Long> state = new HashMap<>();
    int u = 0;
    for (Txn t : all) {
      while (u < updates.size() && updates.get(u).commit() <= t.snapshot()) {
        updates.get(u++).writes().forEach(state::put);
      }
      assertReads(t, state, "snapshot read");
    }
    for (Txn t : updates) {
      for (Txn other : updates) {
        if (other.commit() > t.snapshot() && other.commit() < t.commit()) {
          for (String k : t.writes().keySet()) {
            if (other.writes().containsKey(k)) {
              fail("first committer did not win on " + k + ": " + other + " then " + t);
            }
          }
        }
      }
    }
    Map<String, Long> end = new HashMap<>();
    updates.forEach(t -> t.writes().forEach(end::put));
    return withoutNulls(end);
  }

  private static void checkConflictsAreReal(List<Txn> history) {
    Map<Long, Txn> bySequence = new HashMap<>();
    committedUpdatesInOrder(history).forEach(t -> bySequence.put(t.commit(), t));
    for (Txn t : history) {
      if (!t.committed()) {
        assertTrue(!t.conflicts().isEmpty());
        for (TransactionConflictException.ConflictingKey k : t.conflicts()) {
          Txn writer = bySequence.get(k.committedAt());
          assertTrue(
              k.committedAt() > t.snapshot()
                  && writer != null
                  && writer.writes().containsKey((String) k.key()),
              "invented conflict " + k);
        }
      }
    }
  }

  private static List<Txn> committedUpdatesInOrder(List<Txn> history) {
    List<Txn> updates =
        history.stream()
            .filter(t -> t.committed() && t.updates())
            .sorted(Comparator.comparingLong(Txn::commit))
            .toList();
    for (int i = 0; i < updates.size(); i++) {
      assertEquals(i + 1, updates.get(i).commit(), "commit sequences have a gap");
    }
    return updates;
  }

  private static void assertReads(Txn t, Map<String, Long> state, String what) {
    for (Map.Entry<String, Long> read : t.reads().entrySet()) {
      if (!Objects.equals(state.get(read.getKey()), read.getValue())) {
        fail(what + ": " + t + " read " + read + " but the state held " + state.get(read.getKey()));
      }
    }
  }

  private static Map<String, Long> withoutNulls(Map<String, Long> state) {
    Map<String, Long> m = new HashMap<>();
    for (int k = 0; k < KEYS; k++) {
      m.put("k" + k, state.get("k" + k));
    }
    return m;
  }
}
