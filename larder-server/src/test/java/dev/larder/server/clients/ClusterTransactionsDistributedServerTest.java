package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Three clustered servers with {@code cluster-transactions on} in DISTRIBUTED mode (each key held
 * by two of them): EXECs over keys held by different members are all-or-nothing through every
 * member, and DBSIZE, KEYS, SCAN and FLUSHDB through any member see every key of the cluster once,
 * not only the keys that member holds.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterTransactionsDistributedServerTest {
  private static final List<LarderServer> MEMBERS = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    MEMBERS.addAll(
        TransactionalServers.start(3, "cluster-mode", "distributed", "cluster-owners", "2"));
  }

  @AfterAll
  static void stop() {
    MEMBERS.forEach(LarderServer::close);
  }

  private static Jedis jedis(int member) {
    return new Jedis("127.0.0.1", MEMBERS.get(member).respPort(), 20_000);
  }

  @Test
  void everyMemberListsCountsScansAndFlushesTheWholeCluster() {
    int keys = 60;
    try (Jedis w = jedis(0)) {
      w.flushDB();
    }
    for (int i = 0; i < keys; i++) {
      try (Jedis w = jedis(i % 3)) {
        w.set("listed:" + i, Integer.toString(i));
      }
    }
    Set<String> expected = new HashSet<>();
    for (int i = 0; i < keys; i++) {
      expected.add("listed:" + i);
    }
    for (int m = 0; m < 3; m++) {
      try (Jedis r = jedis(m)) {
        assertEquals(keys, r.dbSize(), "DBSIZE through m" + m);
        assertEquals(expected, r.keys("listed:*"), "KEYS through m" + m);
        Set<String> scanned = new HashSet<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
          ScanResult<String> page = r.scan(cursor, new ScanParams().count(7));
          scanned.addAll(page.getResult());
          cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        assertEquals(expected, scanned, "SCAN through m" + m);
      }
    }
    try (Jedis f = jedis(1)) {
      f.flushDB();
    }
    for (int m = 0; m < 3; m++) {
      try (Jedis r = jedis(m)) {
        assertEquals(0, r.dbSize(), "DBSIZE through m" + m + " after FLUSHDB through m1");
        for (int i = 0; i < keys; i += 7) {
          assertNull(r.get("listed:" + i), "listed:" + i + " through m" + m);
        }
      }
    }
  }

  @Test
  void transfersThroughEveryMemberKeepTheSumAtEveryAudit() throws Exception {
    int accounts = 6;
    long initial = 1000;
    List<String> names = new ArrayList<>();
    try (Jedis setup = jedis(0)) {
      Transaction t = setup.multi();
      for (int i = 0; i < accounts; i++) {
        names.add("dist-bank:" + i);
        t.set(names.get(i), Long.toString(initial));
      }
      t.exec();
    }
    long sum = initial * accounts;
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<Long>> transfers = new ArrayList<>();
      List<Future<Long>> audits = new ArrayList<>();
      AtomicInteger running = new AtomicInteger(3);
      for (int member = 0; member < 3; member++) {
        int m = member;
        transfers.add(
            pool.submit(
                () -> {
                  long committed = 0;
                  Random random = new Random(m);
                  try (Jedis c = jedis(m)) {
                    for (int i = 0; i < 40; i++) {
                      int from = random.nextInt(accounts);
                      int to = (from + 1 + random.nextInt(accounts - 1)) % accounts;
                      Transaction t = c.multi();
                      t.decrBy(names.get(from), 3);
                      t.incrBy(names.get(to), 3);
                      try {
                        t.exec();
                        committed++;
                      } catch (JedisDataException e) {
                        // every attempt conflicted: nothing of it applied (the audits check it)
                      }
                    }
                  } finally {
                    running.decrementAndGet();
                  }
                  return committed;
                }));
        audits.add(
            pool.submit(
                () -> {
                  long n = 0;
                  try (Jedis c = jedis(m)) {
                    while (running.get() > 0 || n == 0) {
                      Transaction t = c.multi();
                      names.forEach(t::get);
                      long seen = 0;
                      for (Object v : t.exec()) {
                        seen += Long.parseLong(v.toString());
                      }
                      assertEquals(sum, seen, "an audit through m" + m);
                      n++;
                    }
                  }
                  return n;
                }));
      }
      long committed = 0;
      for (Future<Long> f : transfers) {
        committed += f.get(120, TimeUnit.SECONDS);
      }
      for (Future<Long> f : audits) {
        assertTrue(f.get(60, TimeUnit.SECONDS) > 0);
      }
      assertTrue(committed > 0, "no transfer committed");
      for (int m = 0; m < 3; m++) {
        try (Jedis r = jedis(m)) {
          Transaction t = r.multi();
          names.forEach(t::get);
          long total = 0;
          for (Object v : t.exec()) {
            total += Long.parseLong(v.toString());
          }
          assertEquals(sum, total, "m" + m);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * No member holds every key at a transaction's snapshot in DISTRIBUTED mode, so a walk of the
   * keyspace inside an EXEC is refused: the whole EXEC answers an error and applies nothing.
   */
  @Test
  void aWalkOfTheKeyspaceInsideExecIsRefusedWhole() {
    try (Jedis j = jedis(0)) {
      j.set("refused:a", "1");
      Transaction t = j.multi();
      t.set("refused:a", "2");
      t.keys("*");
      JedisDataException e = assertThrows(JedisDataException.class, t::exec);
      assertTrue(e.getMessage().contains("not supported inside MULTI/EXEC"), e.getMessage());
      assertEquals("1", j.get("refused:a"), "nothing of the EXEC applied");
    }
  }
}
