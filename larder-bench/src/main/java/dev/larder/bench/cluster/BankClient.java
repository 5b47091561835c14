package dev.larder.bench.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One Redis client of {@link ServerClusterTxTrial}, on one member: MULTI/EXEC bank transfers (move
 * an amount between two of {@value #ACCOUNTS} accounts and append the transfer's record, {@code
 * seq:from:to:amount}, to this client's log list, all in one EXEC) and, one time in five, audits
 * (every account read in one MULTI, their sum checked). Each transfer's outcome is recorded by its
 * sequence number: acknowledged (EXEC answered its three replies), aborted (answered with a
 * conflict: nothing applied), refused (CLUSTERDOWN: nothing applied) or unknown (TRYAGAIN, or the
 * connection broke). The connection is opened again after any error.
 *
 * <p>Runs on one thread; the outcome sets and counters may be read from others while it runs.
 */
final class BankClient implements Runnable {

  /** The number of accounts. */
  static final int ACCOUNTS = 10;

  /** Each account's balance before any transfer. */
  static final long INITIAL_BALANCE = 100;

  /** The sum every audit must find. */
  static final long TOTAL = ACCOUNTS * INITIAL_BALANCE;

  final String id;
  final Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
  final Set<Long> aborted = ConcurrentHashMap.newKeySet();
  final Set<Long> refused = ConcurrentHashMap.newKeySet();
  final AtomicLong unknown = new AtomicLong();
  final AtomicLong audits = new AtomicLong();
  final AtomicLong sumViolations = new AtomicLong();
  volatile String lastError = "none";
  volatile String firstWrongSum;

  private final int port;
  private final AtomicBoolean running;
  private final Random random = new Random();
  private Jedis jedis;
  private long seq;

  /**
   * @param id the client's name (its log list is {@code log:<id>})
   * @param port the RESP port of its member
   * @param running cleared to stop it
   */
  BankClient(String id, int port, AtomicBoolean running) {
    this.id = id;
    this.port = port;
    this.running = running;
  }

  static String account(int i) {
    return "acct" + i;
  }

  static String log(String client) {
    return "log:" + client;
  }

  /** Sets every account to its initial balance in one EXEC, retrying for up to 60 s. */
  static void seed(int port) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try (Jedis j = new Jedis("127.0.0.1", port, 10_000)) {
        Transaction t = j.multi();
        for (int i = 0; i < ACCOUNTS; i++) {
          t.set(account(i), Long.toString(INITIAL_BALANCE));
        }
        t.exec();
        return;
      } catch (RuntimeException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not seed the accounts in 60 s", e);
        }
        Thread.sleep(50);
      }
    }
  }

  /**
   * Adds 0 to every account in one EXEC through the member at {@code port}, retrying until it
   * commits or {@code boundNanos} pass.
   *
   * @return null once it committed, else the last error
   */
  static String touchAll(int port, long boundNanos) throws InterruptedException {
    long deadline = System.nanoTime() + boundNanos;
    String last = "no attempt";
    while (System.nanoTime() < deadline) {
      try (Jedis j = new Jedis("127.0.0.1", port, 10_000)) {
        Transaction t = j.multi();
        for (int i = 0; i < ACCOUNTS; i++) {
          t.incrBy(account(i), 0);
        }
        List<Object> r = t.exec();
        if (r != null
            && r.size() == ACCOUNTS
            && r.stream().noneMatch(o -> o instanceof Exception)) {
          return null;
        }
        last = "EXEC answered " + r;
      } catch (RuntimeException e) {
        last = String.valueOf(e.getMessage());
      }
      Thread.sleep(50);
    }
    return last;
  }

  @Override
  public void run() {
    try {
      while (running.get()) {
        if (random.nextInt(5) == 0) {
          audit();
        } else {
          transfer();
        }
      }
    } finally {
      disconnect();
    }
  }

  private Jedis connection() {
    if (jedis == null) {
      jedis = new Jedis("127.0.0.1", port, 10_000);
    }
    return jedis;
  }

  private void disconnect() {
    if (jedis != null) {
      try {
        jedis.close();
      } catch (RuntimeException ignored) {
        // the member may be gone: nothing to close cleanly
      }
      jedis = null;
    }
  }

  private void transfer() {
    int from = random.nextInt(ACCOUNTS);
    int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
    long amount = 1L + random.nextInt(10);
    long n = ++seq;
    boolean execSent = false;
    try {
      Transaction t = connection().multi();
      t.decrBy(account(from), amount);
      t.incrBy(account(to), amount);
      t.rpush(log(id), n + ":" + from + ":" + to + ":" + amount);
      execSent = true;
      List<Object> r = t.exec();
      if (r != null && r.size() == 3 && r.stream().noneMatch(o -> o instanceof Exception)) {
        acknowledged.add(n);
      } else {
        // a queued command's own error: the EXEC ran, but not as the trial wrote it
        unknown.incrementAndGet();
        lastError = "EXEC answered " + r;
        disconnect();
      }
    } catch (JedisDataException e) {
      String m = String.valueOf(e.getMessage());
      lastError = m;
      if (m.startsWith("CLUSTERDOWN")) {
        refused.add(n);
      } else if (m.startsWith("ERR transaction")) {
        aborted.add(n); // every attempt conflicted, or a reconfiguration aborted it
      } else {
        unknown.incrementAndGet(); // TRYAGAIN: in doubt
      }
      disconnect();
      pause();
    } catch (RuntimeException e) {
      // the member died or the connection broke: the outcome is unknown once EXEC may have gone
      // out (a member that is down refuses the connection, and nothing was sent)
      lastError = String.valueOf(e);
      if (execSent) {
        unknown.incrementAndGet();
      }
      disconnect();
      pause();
    }
  }

  private void audit() {
    try {
      Transaction t = connection().multi();
      List<Response<String>> reads = new ArrayList<>();
      for (int i = 0; i < ACCOUNTS; i++) {
        reads.add(t.get(account(i)));
      }
      t.exec();
      long sum = 0;
      StringBuilder seen = new StringBuilder();
      for (Response<String> r : reads) {
        String v = r.get();
        seen.append(v).append(' ');
        sum += v == null ? 0 : Long.parseLong(v);
      }
      audits.incrementAndGet();
      if (sum != TOTAL) {
        sumViolations.incrementAndGet();
        if (firstWrongSum == null) {
          firstWrongSum = "sum " + sum + " of " + seen.toString().trim();
        }
      }
    } catch (RuntimeException e) {
      // refused, in doubt or disconnected: no sum was read
      lastError = String.valueOf(e.getMessage());
      disconnect();
      pause();
    }
  }

  private static void pause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
