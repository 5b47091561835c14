package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A member of three with {@code cluster-transactions on} stops while EXECs run through the other
 * two: no EXEC is half applied (its two INCRs stay equal on both survivors), none acknowledged is
 * lost, and the keys take a new EXEC afterwards (no lock outlives the member). The member stops as
 * a server does when closed (it leaves the cluster); a SIGKILL is not tried here.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterTransactionsMemberLossTest {

  @Test
  void aMemberStoppingMidExecLeavesNoHalfTransactionAndNoLockedKey() throws Exception {
    List<LarderServer> members = TransactionalServers.start(3, "cluster-timeout", "3000");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong acknowledged = new AtomicLong();
      AtomicLong failed = new AtomicLong();
      List<Future<?>> writers = new ArrayList<>();
      for (int member = 0; member < 2; member++) {
        int m = member;
        writers.add(
            pool.submit(
                () -> {
                  while (!stop.get()) {
                    try (Jedis c = jedis(members.get(m))) {
                      while (!stop.get()) {
                        Transaction t = c.multi();
                        t.incr("loss:a");
                        t.incr("loss:b");
                        List<Object> r = t.exec();
                        assertEquals(r.get(0), r.get(1), "one EXEC's two INCRs through m" + m);
                        acknowledged.incrementAndGet();
                      }
                    } catch (JedisException e) {
                      // TRYAGAIN while the survivors reconfigure (the EXEC may or may not have
                      // committed, whole), or a conflict's last attempt: counted, then go on
                      failed.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      awaitAtLeast(acknowledged, 20);
      members.get(2).close();
      long before = acknowledged.get();
      awaitAtLeast(acknowledged, before + 20);
      stop.set(true);
      for (Future<?> w : writers) {
        w.get(60, TimeUnit.SECONDS);
      }
      for (int m = 0; m < 2; m++) {
        try (Jedis r = jedis(members.get(m))) {
          // a commit acknowledged through the other member is read here once this member's
          // clock passed its timestamp: a moment at most
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          while (Long.parseLong(r.get("loss:a")) < acknowledged.get()
              && System.nanoTime() < deadline) {
            Thread.sleep(5);
          }
          long a = Long.parseLong(r.get("loss:a"));
          long b = Long.parseLong(r.get("loss:b"));
          assertEquals(a, b, "both INCRs of every EXEC, or neither, through m" + m);
          assertTrue(
              a >= acknowledged.get() && a <= acknowledged.get() + failed.get(),
              a + " applied, " + acknowledged + " acknowledged, " + failed + " failed");
        }
      }
      try (Jedis c = jedis(members.get(0))) {
        Transaction t = c.multi();
        t.set("loss:a", "done");
        t.set("loss:b", "done");
        assertEquals(List.of("OK", "OK"), t.exec(), "the keys take a new EXEC");
      }
    } finally {
      pool.shutdownNow();
      members.forEach(LarderServer::close);
    }
  }

  private static Jedis jedis(LarderServer m) {
    return new Jedis("127.0.0.1", m.respPort(), 20_000);
  }

  /** Waits up to 60 s until {@code counter} reaches {@code target}. */
  private static void awaitAtLeast(AtomicLong counter, long target) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (counter.get() < target) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("only " + counter.get() + " of " + target + " EXECs committed");
      }
      Thread.sleep(10);
    }
  }
}
