package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.ServerConfig;
import dev.larder.server.internal.cluster.ServerCluster;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The expiry sweep of a clustered keyspace idles while no value with an expiry reaches its member,
 * wakes for one written through another member, removes only the keys its member is primary of, and
 * after a view change removes those it became primary of. Two members' keyspaces over their
 * clustered caches, swept by hand with a clock of the test's (no server runs its own sweep here).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusteredSweepTest {
  private final AtomicLong now = new AtomicLong(System.currentTimeMillis());
  private final List<Keyspace> keyspaces = new ArrayList<>();
  private final List<ServerCluster> members = new ArrayList<>();
  private final long[] walked = new long[2];

  @AfterEach
  void close() {
    keyspaces.forEach(Keyspace::close);
  }

  private void start() throws Exception {
    String name = "sweep-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    int[] ports = {LoopbackCluster.freeClusterPort(false), LoopbackCluster.freeClusterPort(false)};
    for (int i = 0; i < 2; i++) {
      ServerCluster member = join(name, ports, i);
      int m = i;
      Keyspace ks =
          new Keyspace(
              member.cache(),
              64 << 20,
              now::get,
              member.versions(),
              () -> counted(member.localEntries(), m));
      ks.clusterStore(member);
      members.add(member);
      keyspaces.add(ks);
    }
    LoopbackCluster.await(
        () -> members.stream().allMatch(m -> m.cache().members().size() == 2), "both members");
    for (ServerCluster m : members) {
      assertTrue(m.cache().awaitRebalanced(Duration.ofSeconds(60)));
    }
  }

  /**
   * Joins member {@code i} on {@code ports[i]}; if that port was taken by the time JGroups bound it
   * (found free a moment before), joins again on a fresh one, at most 5 times, and updates {@code
   * ports}.
   */
  private static ServerCluster join(String name, int[] ports, int i) throws Exception {
    for (int attempt = 1; ; attempt++) {
      ServerConfig config =
          ServerConfig.of(
              Map.of(
                  "cluster",
                  name,
                  "cluster-port",
                  Integer.toString(ports[i]),
                  "peers",
                  LoopbackCluster.peers(ports),
                  "cluster-node-name",
                  "s" + i,
                  "memcache-port",
                  "0",
                  "http-port",
                  "-1",
                  // member 0 leaves in a test: member 1 alone goes on writing
                  "cluster-partition-handling",
                  "allow-all"));
      try {
        return ServerCluster.join(config, LoopbackCluster.freePort());
      } catch (RuntimeException e) {
        if (attempt == 5 || !LoopbackCluster.causedByBind(e)) {
          throw e;
        }
        System.err.println("ClusteredSweepTest: s" + i + " could not bind (" + e + "); fresh port");
        ports[i] = LoopbackCluster.freeClusterPort(false);
      }
    }
  }

  /** The walk, counting the entries it hands out into {@code walked[member]}. */
  private Iterator<Map.Entry<byte[], byte[]>> counted(
      Iterator<Map.Entry<byte[], byte[]>> walk, int member) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return walk.hasNext();
      }

      @Override
      public Map.Entry<byte[], byte[]> next() {
        walked[member]++;
        return walk.next();
      }
    };
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A key of database 0 whose primary is member {@code m}. */
  private String keyOwnedBy(int m, String prefix) {
    for (int i = 0; ; i++) {
      byte[] k = b(prefix + i);
      byte[] stored = new byte[k.length + 1];
      System.arraycopy(k, 0, stored, 1, k.length);
      if (members.get(m).sweeps(stored)) {
        return prefix + i;
      }
    }
  }

  /** Sweeps member {@code m} until a call removes nothing; returns the keys removed. */
  private int sweepAll(int m) {
    return sweepAll(keyspaces.get(m));
  }

  private static int sweepAll(Keyspace ks) {
    int removed = 0;
    for (int round = 0; round < 10; round++) {
      int r = ks.sweepExpired(10_000);
      removed += r;
      if (r == 0 && round > 0) {
        break;
      }
    }
    return removed;
  }

  /** Returns how many entries one more sweep of member {@code m} walks. */
  private long walkOfOneSweep(int m) {
    walked[m] = 0;
    keyspaces.get(m).sweepExpired(10_000);
    return walked[m];
  }

  @Test
  void theSweepIdlesAndWakesForExpiringValuesWrittenThroughAnyMember() throws Exception {
    start();
    for (int i = 0; i < 200; i++) {
      keyspaces.get(i % 2).put(0, b("plain" + i), StoredValue.string(b("v")));
    }
    sweepAll(0);
    sweepAll(1);
    assertEquals(0, walkOfOneSweep(0), "no value with an expiry: member 0's sweep idles");
    assertEquals(0, walkOfOneSweep(1), "and member 1's");

    // written through member 1, primary member 0: both hold a copy, both sweeps wake
    String key = keyOwnedBy(0, "exp:");
    keyspaces.get(1).put(0, b(key), StoredValue.string(b("v")).withExpiry(now.get() + 1_000));
    assertTrue(walkOfOneSweep(0) > 0, "the primary's sweep woke");
    assertTrue(walkOfOneSweep(1) > 0, "the backup's sweep woke");
    now.addAndGet(2_000);
    assertEquals(0, sweepAll(1), "the backup leaves the key to its primary");
    assertEquals(1, sweepAll(0), "the primary removes it");
    assertNull(keyspaces.get(1).peek(0, b(key)));
    sweepAll(0);
    sweepAll(1);
    assertEquals(0, walkOfOneSweep(0), "idle again once no copy has an expiry");
    assertEquals(0, walkOfOneSweep(1));
  }

  @Test
  void aMemberThatBecomesPrimarySweepsWhatItHeldAsBackup() throws Exception {
    start();
    String key = keyOwnedBy(0, "moved:");
    keyspaces.get(0).put(0, b(key), StoredValue.string(b("v")).withExpiry(now.get() + 1_000));
    assertEquals(0, sweepAll(1), "member 1 is a backup of the key");
    Keyspace survivor = keyspaces.get(1);
    assertNotNull(survivor.peek(0, b(key)));
    keyspaces.remove(0).close();
    LoopbackCluster.await(
        () -> members.get(1).cache().members().size() == 1, "member 1 alone in its view");
    now.addAndGet(2_000);
    assertEquals(1, sweepAll(survivor), "the new primary removes the expired key");
  }
}
