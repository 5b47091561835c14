package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusteredTxMember;
import dev.larder.server.LarderServer;
import dev.larder.server.ServerSetting;
import dev.larder.server.internal.cluster.SlotPartitioner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Three clustered servers with {@code cluster-transactions on}: MULTI/EXEC commits through cluster
 * transactions, so a transaction over keys of different members' slots is all-or-nothing and
 * isolated as seen through every member, concurrent EXECs through different members serialize, and
 * WATCH sees a change made through another member.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterTransactionsServerTest {
  private static final List<LarderServer> MEMBERS = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    MEMBERS.addAll(TransactionalServers.start(3));
  }

  @AfterAll
  static void stop() {
    MEMBERS.forEach(LarderServer::close);
  }

  private static Jedis jedis(int member) {
    return new Jedis("127.0.0.1", MEMBERS.get(member).respPort(), 20_000);
  }

  /**
   * Waits up to 10 s until {@code key} reads {@code expected} through {@code r}: for a commit made
   * by another client, which may still be under way when this one reads.
   */
  static void awaitValue(Jedis r, String key, String expected, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    String seen = r.get(key);
    while (!expected.equals(seen) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
      seen = r.get(key);
    }
    assertEquals(expected, seen, what);
  }

  /** Returns the RESP port of the master CLUSTER NODES names for {@code slot}. */
  private static int masterPort(Jedis j, long slot) {
    for (String line : j.clusterNodes().split("\n", -1)) {
      String[] f = line.trim().split(" ", -1);
      if (f.length < 9 || !f[2].contains("master")) {
        continue;
      }
      for (int i = 8; i < f.length; i++) {
        String[] range = f[i].split("-", -1);
        long from = Long.parseLong(range[0]);
        long to = range.length > 1 ? Long.parseLong(range[1]) : from;
        if (slot >= from && slot <= to) {
          String address = f[1].split("@", -1)[0];
          return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        }
      }
    }
    throw new AssertionError("no master for slot " + slot);
  }

  /** Two keys (with {@code prefix}) whose slots have different masters. */
  private static String[] keysOfTwoMasters(String prefix) {
    try (Jedis j = jedis(0)) {
      String first = prefix + 0;
      int master = masterPort(j, j.clusterKeySlot(first));
      for (int i = 1; i < 1000; i++) {
        String other = prefix + i;
        if (masterPort(j, j.clusterKeySlot(other)) != master) {
          return new String[] {first, other};
        }
      }
    }
    throw new AssertionError("every key has one master");
  }

  @Test
  void anExecOverTwoMembersSlotsIsAllOrNothingThroughEveryMember() throws Exception {
    String[] k = keysOfTwoMasters("pair:");
    try (Jedis w = jedis(0)) {
      w.set(k[0], "0");
      w.set(k[1], "0");
    }
    int rounds = 150;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> readers = new ArrayList<>();
      AtomicLong done = new AtomicLong();
      for (int member = 0; member < 3; member++) {
        int m = member;
        readers.add(
            pool.submit(
                () -> {
                  int reads = 0;
                  try (Jedis r = jedis(m)) {
                    while (done.get() == 0 || reads == 0) {
                      Transaction t = r.multi();
                      t.get(k[0]);
                      t.get(k[1]);
                      List<Object> both = t.exec();
                      assertEquals(both.get(0), both.get(1), "a torn pair read through m" + m);
                      reads++;
                    }
                  }
                  return reads;
                }));
      }
      Future<?> writer =
          pool.submit(
              () -> {
                try (Jedis w = jedis(1)) {
                  for (int i = 1; i <= rounds; i++) {
                    Transaction t = w.multi();
                    t.set(k[0], Integer.toString(i));
                    t.set(k[1], Integer.toString(i));
                    assertEquals(List.of("OK", "OK"), t.exec());
                  }
                } finally {
                  done.set(1);
                }
                return null;
              });
      writer.get(120, TimeUnit.SECONDS);
      for (Future<Integer> r : readers) {
        assertTrue(r.get(60, TimeUnit.SECONDS) > 0);
      }
    } finally {
      pool.shutdownNow();
    }
    for (int m = 0; m < 3; m++) {
      try (Jedis r = jedis(m)) {
        awaitValue(r, k[0], Integer.toString(rounds), "m" + m);
        assertEquals(Integer.toString(rounds), r.get(k[1]), "m" + m);
      }
    }
  }

  @Test
  void aWatchedKeyChangedThroughAnotherMemberMakesExecNil() {
    String[] k = keysOfTwoMasters("watched:");
    try (Jedis a = jedis(0);
        Jedis b = jedis(2)) {
      a.set(k[0], "before");
      a.watch(k[0]);
      assertEquals("OK", b.set(k[0], "changed"));
      Transaction t = a.multi();
      t.set(k[0], "mine");
      t.set(k[1], "mine");
      assertNull(t.exec(), "EXEC after a watched key changed on another member");
      assertEquals("changed", b.get(k[0]));
      assertNull(b.get(k[1]), "nothing of the discarded EXEC applied");
      // unchanged, the same EXEC commits
      a.watch(k[0]);
      Transaction again = a.multi();
      again.set(k[0], "mine");
      again.set(k[1], "mine");
      assertNotNull(again.exec());
      awaitValue(b, k[1], "mine", "the EXEC through m0, read through m2");
    }
  }

  @Test
  void concurrentExecsThroughDifferentMembersSerialize() throws Exception {
    String[] k = keysOfTwoMasters("counter:");
    int perClient = 40;
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<Integer>> clients = new ArrayList<>();
      for (int member = 0; member < 3; member++) {
        int m = member;
        clients.add(
            pool.submit(
                () -> {
                  int committed = 0;
                  try (Jedis c = jedis(m)) {
                    for (int i = 0; i < perClient; i++) {
                      // a read-modify-write under MULTI: both keys are INCRed together
                      Transaction t = c.multi();
                      t.incr(k[0]);
                      t.incr(k[1]);
                      List<Object> r;
                      try {
                        r = t.exec();
                      } catch (JedisDataException e) {
                        continue; // every attempt conflicted: nothing of it applied
                      }
                      assertEquals(r.get(0), r.get(1), "one EXEC's two INCRs through m" + m);
                      committed++;
                    }
                  }
                  return committed;
                }));
      }
      int total = 0;
      for (Future<Integer> f : clients) {
        total += f.get(120, TimeUnit.SECONDS);
      }
      assertTrue(total > 0, "no EXEC committed");
      for (int m = 0; m < 3; m++) {
        try (Jedis r = jedis(m)) {
          awaitValue(r, k[0], Integer.toString(total), "m" + m);
          assertEquals(Integer.toString(total), r.get(k[1]), "m" + m);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void bankTransfersThroughEveryMemberKeepTheSumAtEveryAudit() throws Exception {
    int accounts = 6;
    long initial = 1000;
    List<String> names = new ArrayList<>();
    try (Jedis setup = jedis(0)) {
      for (int i = 0; i < accounts; i++) {
        names.add("bank:" + i);
        setup.set(names.get(i), Long.toString(initial));
      }
    }
    long sum = initial * accounts;
    AtomicLong transfersDone = new AtomicLong();
    AtomicLong failedExecs = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<Long>> work = new ArrayList<>();
      for (int member = 0; member < 3; member++) {
        int m = member;
        work.add(
            pool.submit(
                () -> {
                  long committed = 0;
                  java.util.Random random = new java.util.Random(m);
                  try (Jedis c = jedis(m)) {
                    for (int i = 0; i < 60; i++) {
                      int from = random.nextInt(accounts);
                      int to = (from + 1 + random.nextInt(accounts - 1)) % accounts;
                      Transaction t = c.multi();
                      t.decrBy(names.get(from), 7);
                      t.incrBy(names.get(to), 7);
                      try {
                        t.exec();
                        committed++;
                      } catch (JedisDataException e) {
                        // every attempt conflicted: the EXEC failed whole (the audits check it)
                        failedExecs.incrementAndGet();
                      }
                    }
                  } finally {
                    transfersDone.incrementAndGet();
                  }
                  return committed;
                }));
        work.add(
            pool.submit(
                () -> {
                  long audits = 0;
                  try (Jedis c = jedis(m)) {
                    while (transfersDone.get() < 3 || audits == 0) {
                      Transaction t = c.multi();
                      names.forEach(t::get);
                      long seen = 0;
                      for (Object v : t.exec()) {
                        seen += Long.parseLong(v.toString());
                      }
                      assertEquals(sum, seen, "an audit through m" + m);
                      audits++;
                    }
                  }
                  return audits;
                }));
      }
      long committed = 0;
      for (int i = 0; i < work.size(); i++) {
        long n = work.get(i).get(150, TimeUnit.SECONDS);
        if (i % 2 == 0) {
          committed += n;
        }
      }
      assertNotEquals(0, committed, failedExecs + " EXECs failed");
      for (int m = 0; m < 3; m++) {
        try (Jedis r = jedis(m)) {
          long total = 0;
          for (String n : names) {
            total += Long.parseLong(r.get(n));
          }
          assertEquals(sum, total, "m" + m);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * CLUSTER NODES (the slot map) and MOVED name each slot's primary in the transactional store's
   * epoch (the member that validates and locks its keys at commit), not the primary of the
   * cluster's own view.
   */
  @Test
  void slotMapAndMovedNameTheTransactionalStoresPrimaries() {
    ClusteredTxMember tx = MEMBERS.get(0).clusteredTxMember().orElseThrow();
    int segments = Integer.parseInt(MEMBERS.get(0).config().get(ServerSetting.CLUSTER_SEGMENTS));
    Map<String, Integer> ports = new HashMap<>();
    for (LarderServer m : MEMBERS) {
      ports.put(m.clusterNodeName(), m.respPort());
    }
    try (Jedis j = jedis(0)) {
      for (int slot = 0; slot < 16384; slot += 61) {
        String primary = tx.owners(SlotPartitioner.segmentOfSlot(slot, segments)).getFirst();
        assertEquals(ports.get(primary), masterPort(j, slot), "master of slot " + slot);
      }
    }
    try (Jedis j = jedis(0)) {
      String key = null;
      String primary = null;
      for (int i = 0; key == null; i++) {
        String candidate = "moved:" + i;
        int slot = (int) j.clusterKeySlot(candidate);
        String p = tx.owners(SlotPartitioner.segmentOfSlot(slot, segments)).getFirst();
        if (!p.equals(MEMBERS.get(0).clusterNodeName())) {
          key = candidate;
          primary = p;
        }
      }
      String write = key;
      j.readonly();
      JedisMovedDataException moved =
          assertThrows(
              JedisMovedDataException.class, () -> j.set(write, "v"), "a write of " + write);
      assertEquals(ports.get(primary).intValue(), moved.getTargetNode().getPort());
    }
  }

  /**
   * KEYS, SCAN and DBSIZE inside an EXEC see the keys as its reads do (committed through any member
   * before it), with its own writes overlaid: a SET and a DEL earlier in its queue.
   */
  @Test
  void keysScanAndDbsizeInsideExecSeeTheCommittedKeysAndTheExecsOwnWrites() {
    try (Jedis w = jedis(0);
        Jedis r = jedis(1)) {
      w.set("walk:a", "1");
      w.set("walk:b", "2");
      long before = r.dbSize();
      Transaction t = r.multi();
      t.set("walk:c", "3");
      t.del("walk:a");
      Response<Set<String>> keys = t.keys("walk:*");
      Response<ScanResult<String>> scan =
          t.scan(ScanParams.SCAN_POINTER_START, new ScanParams().match("walk:*").count(100_000));
      Response<Object> size = t.sendCommand(Protocol.Command.DBSIZE, new String[0]);
      t.exec();
      assertEquals(Set.of("walk:b", "walk:c"), keys.get(), "KEYS inside the EXEC");
      assertEquals(
          Set.of("walk:b", "walk:c"), new HashSet<>(scan.get().getResult()), "SCAN inside it");
      assertEquals(before, size.get(), "DBSIZE inside it: one key more, one fewer");
      assertEquals(Set.of("walk:b", "walk:c"), w.keys("walk:*"), "after the EXEC, through m0");
    }
  }

  /**
   * A client that had an EXEC acknowledged through one member reads its writes through any other at
   * once: no read of the value before it (the members' commit waits until every participant's clock
   * passed the commit's timestamp).
   */
  @Test
  void aReadThroughAnyMemberAfterAnAcknowledgedExecSeesIt() {
    List<Jedis> c = List.of(jedis(0), jedis(1), jedis(2));
    try {
      for (int i = 0; i < 150; i++) {
        Transaction t = c.get(i % 3).multi();
        t.set("ryw:x", "v" + i);
        t.set("ryw:y", "v" + i);
        assertEquals(List.of("OK", "OK"), t.exec());
        assertEquals("v" + i, c.get((i + 1) % 3).get("ryw:x"), "EXEC " + i + ", the next member");
        assertEquals("v" + i, c.get((i + 2) % 3).get("ryw:y"), "EXEC " + i + ", the third");
      }
    } finally {
      c.forEach(Jedis::close);
    }
  }
}
