package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * ASYNC replication converges: three members (distributed, two owners), each key written by two
 * pipelined connections at once on its primary (so on two of the primary's event loops, whose
 * backup copies leave in batches at the end of each loop iteration), then written twice more in a
 * row, or written and deleted; every owner ends with the primary's bytes and every member answers
 * the last value.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterAsyncConvergenceTest {
  private static final int KEYS = 600;
  private static final int ROUNDS = 4;
  private static final int WRITERS_PER_MEMBER = 2;

  private static LoopbackCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        new LoopbackCluster(
            3,
            "cluster-mode",
            "distributed",
            "cluster-owners",
            "2",
            "cluster-replication",
            "async",
            "cluster-command-threads",
            "4");
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void aBurstOfWritesThroughEveryMemberEndsWithEveryMemberHoldingTheLastValue() throws Exception {
    int n = cluster.members.size();
    // each key's primary, by RESP port, from the slot map
    List<List<String>> keysOf = new ArrayList<>();
    for (int m = 0; m < n; m++) {
      keysOf.add(new ArrayList<>());
    }
    try (Jedis any = new Jedis("127.0.0.1", cluster.member(0).respPort(), 20_000)) {
      String nodes = any.clusterNodes();
      for (int i = 0; i < KEYS; i++) {
        String key = "conv:" + i;
        int port = masterPort(nodes, any.clusterKeySlot(key));
        keysOf.get(memberWithPort(port)).add(key);
      }
    }
    for (int m = 0; m < n; m++) {
      assertTrue(!keysOf.get(m).isEmpty(), "member " + m + " is primary of some keys");
    }
    Map<String, String> last = new HashMap<>();
    for (int m = 0; m < n; m++) {
      for (String key : keysOf.get(m)) {
        int i = Integer.parseInt(key.substring("conv:".length()));
        // every fifth key ends deleted, the others with a value written once at the end
        last.put(key, i % 5 == 0 ? null : "final:" + i);
      }
    }

    CyclicBarrier burstDone = new CyclicBarrier(n * WRITERS_PER_MEMBER);
    ExecutorService writers = Executors.newFixedThreadPool(n * WRITERS_PER_MEMBER);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int m = 0; m < n; m++) {
        for (int c = 0; c < WRITERS_PER_MEMBER; c++) {
          LarderServer member = cluster.member(m);
          List<String> keys = keysOf.get(m);
          int writer = c;
          String name = "m" + m + "c" + c;
          done.add(
              writers.submit(
                  () -> {
                    try (Jedis j = new Jedis("127.0.0.1", member.respPort(), 30_000)) {
                      Pipeline p = j.pipelined();
                      for (int r = 0; r < ROUNDS; r++) {
                        for (String key : keys) {
                          p.set(key, name + "r" + r);
                        }
                        p.sync();
                      }
                      burstDone.await(60, TimeUnit.SECONDS);
                      // the last writes: each key by one of its primary's writers, twice in a
                      // row (so that both are likely in one batch of copies: they must arrive in
                      // order)
                      for (int k = writer; k < keys.size(); k += WRITERS_PER_MEMBER) {
                        String key = keys.get(k);
                        String value = last.get(key);
                        p.set(key, "before:" + key);
                        if (value == null) {
                          p.del(key);
                        } else {
                          p.set(key, value);
                        }
                      }
                      p.sync();
                    }
                    return null;
                  }));
        }
      }
      for (Future<?> f : done) {
        // a writer's failure fails the test here
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      writers.shutdownNow();
    }

    // the copies leave at the end of each loop iteration: every owner holds the primary's bytes
    // soon after, bounded generously for a loaded host
    LoopbackCluster.await(
        () -> copiesAgree(last.keySet()),
        () -> "every owner of the keys holds the same bytes: " + disagreement(last.keySet()),
        () -> {});
    for (int m = 0; m < n; m++) {
      try (Jedis j = new Jedis("127.0.0.1", cluster.member(m).respPort(), 20_000)) {
        for (Map.Entry<String, String> e : last.entrySet()) {
          assertEquals(e.getValue(), j.get(e.getKey()), e.getKey() + " through member " + m);
        }
      }
    }
  }

  /** Whether each key is held by exactly two members, with equal stored bytes (or by none). */
  private static boolean copiesAgree(Iterable<String> keys) {
    return disagreement(keys).isEmpty();
  }

  /** Describes the keys whose copies differ or whose owner count is off; empty if none. */
  private static String disagreement(Iterable<String> keys) {
    List<Map<String, byte[]>> held = new ArrayList<>();
    for (LarderServer m : cluster.members) {
      Map<String, byte[]> mine = new HashMap<>();
      for (Iterator<Map.Entry<byte[], byte[]>> it = LoopbackCluster.store(m).localEntries();
          it.hasNext(); ) {
        Map.Entry<byte[], byte[]> e = it.next();
        byte[] stored = e.getKey();
        // the stored key is the database's byte, then the key
        mine.put(new String(stored, 1, stored.length - 1, StandardCharsets.UTF_8), e.getValue());
      }
      held.add(mine);
    }
    StringBuilder out = new StringBuilder();
    for (String key : keys) {
      List<byte[]> copies = new ArrayList<>();
      for (Map<String, byte[]> mine : held) {
        if (mine.containsKey(key)) {
          copies.add(mine.get(key));
        }
      }
      boolean equal = copies.stream().allMatch(c -> Arrays.equals(c, copies.getFirst()));
      if (!(copies.isEmpty() || (copies.size() == 2 && equal))) {
        out.append(key).append(": ").append(copies.size()).append(" copies, equal ").append(equal);
        out.append("; ");
      }
    }
    return out.toString();
  }

  /** Returns the RESP port of the master of a slot, from CLUSTER NODES. */
  private static int masterPort(String nodes, long slot) {
    for (String line : nodes.lines().toList()) {
      String[] f = line.split(" ", -1);
      for (int i = 8; i < f.length; i++) {
        String[] range = f[i].split("-", -1);
        long from = Long.parseLong(range[0]);
        long to = range.length > 1 ? Long.parseLong(range[1]) : from;
        if (slot >= from && slot <= to) {
          String address = f[1].substring(0, f[1].indexOf('@'));
          return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        }
      }
    }
    throw new AssertionError("no master for slot " + slot);
  }

  private static int memberWithPort(int port) {
    for (int m = 0; m < cluster.members.size(); m++) {
      if (cluster.member(m).respPort() == port) {
        return m;
      }
    }
    throw new AssertionError("no member on port " + port);
  }
}
