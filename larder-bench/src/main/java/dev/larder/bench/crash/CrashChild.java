package dev.larder.bench.crash;

import dev.larder.tx.TxCache;
import dev.larder.tx.TxStore;
import dev.larder.wal.FsyncPolicy;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process the crash trials kill: opens the store, warms up, prints {@code READY}, then runs
 * transfers and unique inserts from several threads, printing {@code C <id>} only after each commit
 * has returned (been acknowledged), until it is killed.
 *
 * <p>Arguments: directory, fsync policy, threads, first id.
 */
public final class CrashChild {

  private CrashChild() {}

  /**
   * Runs the child's workload until the parent kills it.
   *
   * @param args directory, policy, threads, first id
   */
  public static void main(String[] args) {
    Path directory = Path.of(args[0]);
    FsyncPolicy policy = FsyncPolicy.parse(args[1]);
    int threads = Integer.parseInt(args[2]);
    AtomicLong ids = new AtomicLong(Long.parseLong(args[3]));
    // Each line goes out in one write(2) of a few bytes, which a pipe delivers whole: a kill
    // cannot leave half an id for the parent to misread.
    FileOutputStream out = new FileOutputStream(FileDescriptor.out);
    TxStore store = CrashWorkload.open(directory, policy, Duration.ofMillis(200));
    warmUp(store, ids.get() - 1_000);
    print(out, "READY");
    for (int t = 0; t < threads; t++) {
      Thread.ofPlatform().start(() -> work(store, ids, out));
    }
  }

  /** Loads and compiles the commit path (transfers of 0, never printed) before the clock starts. */
  private static void warmUp(TxStore store, long firstId) {
    TxCache<Integer, Long> accounts = store.cache(CrashWorkload.ACCOUNTS);
    TxCache<Long, Long> idCache = store.cache(CrashWorkload.IDS);
    for (long id = firstId; id < firstId + 50; id++) {
      long warmId = id;
      store.inTransaction(
          tx -> {
            tx.put(accounts, 0, tx.get(accounts, 0));
            tx.put(idCache, warmId, 0L);
            return null;
          });
    }
  }

  private static void print(FileOutputStream out, String line) {
    byte[] bytes = (line + "\n").getBytes(StandardCharsets.US_ASCII);
    synchronized (out) {
      try {
        out.write(bytes);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static void work(TxStore store, AtomicLong ids, FileOutputStream out) {
    TxCache<Integer, Long> accounts = store.cache(CrashWorkload.ACCOUNTS);
    TxCache<Long, Long> idCache = store.cache(CrashWorkload.IDS);
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (true) {
      long id = ids.getAndIncrement();
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
      // With the time it was acknowledged (CLOCK_MONOTONIC on Linux, the parent's clock too), so
      // that the parent can tell how old a commit lost by the kill was.
      print(out, "C " + id + " " + System.nanoTime());
    }
  }
}
