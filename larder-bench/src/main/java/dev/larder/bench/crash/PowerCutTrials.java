package dev.larder.bench.crash;

import dev.larder.bench.scenario.ProgressCount;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxStore;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import dev.larder.wal.testing.SimulatedDisk;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Simulated power cuts: the crash workload runs on a {@link SimulatedDisk} with checkpoints, the
 * power is cut at a random moment (every write not yet forced is dropped, kept, or torn, in any
 * order), and the store is rebuilt from what the disk kept. Counts acknowledged commits lost and
 * cuts after which the account total was wrong.
 *
 * <p>Not thread-safe.
 */
public final class PowerCutTrials {

  /**
   * What a run found.
   *
   * @param policy the fsync policy
   * @param cuts cuts made
   * @param acknowledged commits acknowledged before the cuts
   * @param lost acknowledged commits missing after recovery
   * @param partial cuts after which the account total was wrong
   * @param tornTails recoveries that cut a torn tail
   */
  public record Result(
      String policy, int cuts, long acknowledged, long lost, int partial, int tornTails) {}

  private final FsyncPolicy policy;
  private final Random random;

  /**
   * @param policy the fsync policy
   * @param seed seeds the cut times and the fate of each unforced write
   */
  public PowerCutTrials(FsyncPolicy policy, long seed) {
    this.policy = policy;
    this.random = new Random(seed);
  }

  /**
   * Returns the findings.
   *
   * @param cuts how many
   * @param progress receives a {@link ProgressCount} message every 50 cuts and after the last
   * @throws InterruptedException if interrupted
   */
  public Result run(int cuts, Consumer<String> progress) throws InterruptedException {
    long acknowledgedTotal = 0;
    long lost = 0;
    int partial = 0;
    int torn = 0;
    for (int cut = 0; cut < cuts; cut++) {
      SimulatedDisk disk = new SimulatedDisk();
      WalConfig wal =
          WalConfig.of(Path.of("/sim")).withFiles(disk).withSegmentBytes(4096).withPolicy(policy);
      Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
      TxStore store = open(wal);
      CrashWorkload.initialize(store);
      List<Thread> threads = new ArrayList<>();
      AtomicLong ids = new AtomicLong();
      for (int t = 0; t < 4; t++) {
        threads.add(Thread.ofPlatform().start(() -> work(store, ids, acknowledged)));
      }
      threads.add(Thread.ofPlatform().start(() -> checkpoints(store)));
      long deadline = System.nanoTime() + 200_000 + random.nextInt(4_000_000);
      while (System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      disk.powerCut(random);
      for (Thread t : threads) {
        t.join(10_000);
      }
      try {
        store.close();
      } catch (RuntimeException deadDisk) {
        // its disk is gone; closing only releases memory
      }
      try (TxStore reopened = open(wal)) {
        acknowledgedTotal += acknowledged.size();
        lost += missing(reopened, acknowledged);
        if (!totalHolds(reopened)) {
          partial++;
        }
        if (reopened.recovery().orElseThrow().problems().stream()
            .anyMatch(p -> p.startsWith("torn tail"))) {
          torn++;
        }
      }
      // A cut takes milliseconds: count every 50th and the last.
      if ((cut + 1) % 50 == 0 || cut + 1 == cuts) {
        progress.accept(new ProgressCount("cuts", cut + 1, cuts, lost + " lost").encode());
      }
    }
    return new Result(policy.toString(), cuts, acknowledgedTotal, lost, partial, torn);
  }

  private static TxStore open(WalConfig wal) {
    return TxStore.builder()
        .cache(CrashWorkload.ACCOUNTS)
        .cache(CrashWorkload.IDS)
        .persistence(wal)
        .checkpointEvery(Duration.ZERO)
        .build();
  }

  private static void work(TxStore store, AtomicLong ids, Set<Long> acknowledged) {
    TxCache<Integer, Long> accounts = store.cache(CrashWorkload.ACCOUNTS);
    TxCache<Long, Long> idCache = store.cache(CrashWorkload.IDS);
    ThreadLocalRandom random = ThreadLocalRandom.current();
    try {
      while (true) {
        long id = ids.incrementAndGet();
        if (random.nextInt(4) == 0) {
          idCache.put(id, 0L);
        } else {
          int from = random.nextInt(CrashWorkload.ACCOUNT_COUNT);
          int to =
              (from + 1 + random.nextInt(CrashWorkload.ACCOUNT_COUNT - 1))
                  % CrashWorkload.ACCOUNT_COUNT;
          long amount = 1L + random.nextInt(100);
          store.inTransaction(
              10_000,
              tx -> {
                tx.put(accounts, from, tx.get(accounts, from) - amount);
                tx.put(accounts, to, tx.get(accounts, to) + amount);
                tx.put(idCache, id, amount);
                return null;
              });
        }
        acknowledged.add(id);
      }
    } catch (RuntimeException powerWentOut) {
      // this process is gone
    }
  }

  private static void checkpoints(TxStore store) {
    try {
      while (true) {
        store.checkpoint();
        Thread.sleep(1);
      }
    } catch (RuntimeException | InterruptedException powerWentOut) {
      // this process is gone
    }
  }

  static long missing(TxStore store, Iterable<Long> acknowledged) {
    TxCache<Long, Long> ids = store.cache(CrashWorkload.IDS);
    long missing = 0;
    for (long id : acknowledged) {
      if (ids.get(id) == null) {
        missing++;
      }
    }
    return missing;
  }

  static boolean totalHolds(TxStore store) {
    TxCache<Integer, Long> accounts = store.cache(CrashWorkload.ACCOUNTS);
    long total = 0;
    for (int a = 0; a < CrashWorkload.ACCOUNT_COUNT; a++) {
      Long balance = accounts.get(a);
      if (balance == null) {
        return false;
      }
      total += balance;
    }
    return total == CrashWorkload.ACCOUNT_COUNT * CrashWorkload.INITIAL;
  }
}
