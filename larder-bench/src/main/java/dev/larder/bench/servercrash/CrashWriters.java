package dev.larder.bench.servercrash;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The clients of the server crash trials and the check after each restart. Each writer owns its
 * keys and writes the numbers 1, 2, 3... to them, one request at a time, recording each number the
 * server acknowledged:
 *
 * <ul>
 *   <li>RESP writers: {@code SET set:<w> "<n>:<padding>"};
 *   <li>transaction writers: {@code MULTI; SET tx:<w>:a n; SET tx:<w>:b n; INCR tx:<w>:c; EXEC};
 *   <li>memcached writers (Larder only): {@code set mc:<w> 0 0 <len>} of {@code "<n>:<padding>"}.
 * </ul>
 *
 * After a restart a key must hold its last acknowledged number or the next one (the request in
 * flight when the server died): anything lower is {@code acknowledged - found} lost writes; a
 * transaction whose three keys disagree is partial. The numbers found become the writers' starting
 * point for the next trial.
 *
 * <p>Used by one thread (the trials'); each writer thread touches only its own slot, and the trial
 * thread reads the slots after joining the writers.
 */
final class CrashWriters {
  static final int RESP_WRITERS = 4;
  static final int TX_WRITERS = 2;
  static final int MEMCACHED_WRITERS = 3;
  private static final String PADDING = "x".repeat(90);

  /** Writes acknowledged (all writers together) before the kill's clock starts. */
  static final int WARM_UP_WRITES = 500;

  private final boolean memcached;

  /** Per slot: the last number acknowledged (and found after the restart). */
  private final long[] acked = new long[RESP_WRITERS + TX_WRITERS + MEMCACHED_WRITERS];

  /**
   * @param memcached whether the server speaks memcached (its writers run)
   */
  CrashWriters(boolean memcached) {
    this.memcached = memcached;
  }

  /** What one trial's writers got acknowledged, per protocol. */
  record Acknowledged(long resp, long memcached) {}

  /** What the check after a restart found, per protocol. */
  record Found(long lostResp, long lostMemcached, long partial) {}

  /**
   * Runs the writers against a server until {@code kill} has run and every writer has seen its
   * connection die. The kill comes {@code runMillis} after the writers together have had {@value
   * #WARM_UP_WRITES} writes acknowledged (at most a minute after they start): a server just
   * started, in a JVM still compiling its code on a busy machine, may take seconds to answer its
   * first requests, and a kill before then would test nothing.
   *
   * @param server the running server
   * @param runMillis how long the writers write after the warm-up, before the kill
   * @param kill kills the server
   * @return the writes acknowledged
   * @throws Exception if a writer fails otherwise than by its connection dying
   */
  Acknowledged run(CrashTarget.Running server, long runMillis, KillAction kill) throws Exception {
    long[] before = acked.clone();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicLong acknowledged = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int slot = 0; slot < acked.length; slot++) {
      if (slot >= RESP_WRITERS + TX_WRITERS && !memcached) {
        break;
      }
      int s = slot;
      threads.add(
          Thread.ofPlatform()
              .name("crash-writer-" + s)
              .start(
                  () -> {
                    try {
                      write(server, s, acknowledged);
                    } catch (IOException whenKilled) {
                      // The kill closed the connection: what was acknowledged is in acked[s].
                    } catch (Throwable e) {
                      failure.compareAndSet(null, e);
                    }
                  }));
    }
    long warmUntil = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (acknowledged.get() < WARM_UP_WRITES
        && System.nanoTime() < warmUntil
        && failure.get() == null) {
      Thread.sleep(5);
    }
    Thread.sleep(runMillis);
    kill.kill();
    for (Thread t : threads) {
      t.join(60_000);
      if (t.isAlive()) {
        throw new IllegalStateException(t.getName() + " still writing a minute after the kill");
      }
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a writer failed", failure.get());
    }
    long resp = 0;
    long mc = 0;
    for (int slot = 0; slot < acked.length; slot++) {
      long n = acked[slot] - before[slot];
      if (slot < RESP_WRITERS + TX_WRITERS) {
        resp += n;
      } else {
        mc += n;
      }
    }
    return new Acknowledged(resp, mc);
  }

  /** Kills the server. */
  @FunctionalInterface
  interface KillAction {
    void kill() throws Exception;
  }

  private void write(CrashTarget.Running server, int slot, AtomicLong acknowledged)
      throws IOException {
    if (slot >= RESP_WRITERS + TX_WRITERS) {
      writeMemcached(server, slot, acknowledged);
    } else {
      writeResp(server, slot, acknowledged);
    }
  }

  private void writeMemcached(CrashTarget.Running server, int slot, AtomicLong acknowledged)
      throws IOException {
    try (Wire w = new Wire(server.memcachePort())) {
      for (long n = acked[slot] + 1; ; n++) {
        String value = n + ":" + PADDING;
        w.text("set mc:" + slot + " 0 0 " + value.length() + "\r\n" + value + "\r\n");
        w.flush();
        expect("STORED", w.line());
        acked[slot] = n;
        acknowledged.incrementAndGet();
      }
    }
  }

  private void writeResp(CrashTarget.Running server, int slot, AtomicLong acknowledged)
      throws IOException {
    try (Wire w = new Wire(server.respPort())) {
      for (long n = acked[slot] + 1; ; n++) {
        if (slot < RESP_WRITERS) {
          expect("OK", w.call("SET", "set:" + slot, n + ":" + PADDING));
        } else {
          String num = Long.toString(n);
          w.command("MULTI");
          w.command("SET", "tx:" + slot + ":a", num);
          w.command("SET", "tx:" + slot + ":b", num);
          w.command("INCR", "tx:" + slot + ":c");
          w.command("EXEC");
          w.flush();
          expect("OK", w.reply());
          for (int i = 0; i < 3; i++) {
            expect("QUEUED", w.reply());
          }
          expect(List.of("OK", "OK", num), w.reply());
        }
        acked[slot] = n;
        acknowledged.incrementAndGet();
      }
    }
  }

  private static void expect(Object wanted, Object got) {
    if (!wanted.equals(got)) {
      throw new IllegalStateException("expected " + wanted + ", got " + got);
    }
  }

  /**
   * Checks a restarted server against what was acknowledged, then takes what it holds as the
   * writers' next starting point.
   *
   * @param server the restarted server
   * @return lost writes per protocol and partial transactions
   * @throws IOException if the server cannot be read
   */
  Found check(CrashTarget.Running server) throws IOException {
    long lostResp = 0;
    long lostMc = 0;
    long partial = 0;
    try (Wire w = new Wire(server.respPort())) {
      for (int slot = 0; slot < acked.length; slot++) {
        if (slot < RESP_WRITERS) {
          lostResp += settle(slot, number(w.call("GET", "set:" + slot)));
        } else if (slot < RESP_WRITERS + TX_WRITERS) {
          long a = number(w.call("GET", "tx:" + slot + ":a"));
          long b = number(w.call("GET", "tx:" + slot + ":b"));
          long c = number(w.call("GET", "tx:" + slot + ":c"));
          if (a != b || b != c) {
            partial++;
            // Start the next trial from a consistent state: the transaction's keys all at a.
            w.call(
                "MSET",
                "tx:" + slot + ":b",
                Long.toString(a),
                "tx:" + slot + ":c",
                Long.toString(a));
          }
          lostResp += settle(slot, a);
        } else if (memcached) {
          lostMc += settle(slot, number(w.call("GET", "mc:" + slot)));
        }
      }
    }
    return new Found(lostResp, lostMc, partial);
  }

  /** Returns acknowledged writes of the slot missing when {@code found} is there. */
  private long settle(int slot, long found) {
    long lost = Math.max(0, acked[slot] - found);
    acked[slot] = found;
    return lost;
  }

  private static long number(Object value) {
    if (value == null) {
      return 0;
    }
    String s = (String) value;
    int colon = s.indexOf(':');
    return Long.parseLong(colon < 0 ? s : s.substring(0, colon));
  }
}
