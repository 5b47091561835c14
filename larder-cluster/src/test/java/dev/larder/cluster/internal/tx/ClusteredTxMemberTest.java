package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusteredTxMember;
import dev.larder.cluster.ClusteredTxStore;
import dev.larder.cluster.KeyPartitioner;
import dev.larder.cluster.Stacks;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codecs;
import dev.larder.tx.Transaction;
import dev.larder.tx.TransactionConflictException;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxCacheSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ClusteredTxMember}: the walks of a member's newest values (its own, its primaries', the
 * whole cluster's) and the segment owners of its epoch, which a server keeping its keyspace in a
 * clustered store lists, counts and routes keys by; and the cluster's {@link KeyPartitioner}
 * placing keys (three in-process members).
 */
@Timeout(120)
class ClusteredTxMemberTest {

  private static final TxCacheSpec<String, Long> KV =
      TxCacheSpec.of("kv", Codecs.strings(), Codecs.longs());
  private static final int SEGMENTS = 16;
  private static final int KEYS = 60;
  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  /** Each started member's name, as the epoch's member lists spell it. */
  private static final Map<ClusteredTxMember, String> NAMES = new ConcurrentHashMap<>();

  /** A key's segment is its last character's: unlike the default hash, the test computes it. */
  private static final KeyPartitioner LAST_CHAR =
      new KeyPartitioner() {
        @Override
        public int segmentOf(byte[] encodedKey, int segments) {
          String key = Codecs.strings().decode(new ByteSource(encodedKey));
          return key.charAt(key.length() - 1) % segments;
        }

        @Override
        public String id() {
          return "last-char";
        }
      };

  @Test
  void distributedMembersWalkTheKeysTheyOwnAndPrimariesWalkEachKeyOnce() throws Exception {
    List<ClusteredTxMember> members = start(ClusterMode.DISTRIBUTED);
    try {
      Map<String, Long> live = writeAndRemoveSome(members);
      for (int i = 0; i < members.size(); i++) {
        ClusteredTxMember m = members.get(i);
        Map<String, Long> expected = new TreeMap<>();
        live.forEach(
            (k, v) -> {
              if (m.owners(segmentOf(k)).contains(NAMES.get(m))) {
                expected.put(k, v);
              }
            });
        assertEquals(expected, walk(m, false), "keys owned by member " + i);
        assertTrue(expected.size() < live.size(), "two owners of three: member " + i);
      }
      assertPrimariesWalkEachKeyOnce(members, live);
      try (Transaction t = members.getFirst().store().begin()) {
        assertThrows(
            IllegalStateException.class,
            () -> members.getFirst().forEachAt(t, KV, (k, v) -> {}),
            "no member holds every key at a snapshot");
      }
      // the whole cluster's keys through any member: its own primaries' and the others'
      for (int i = 0; i < members.size(); i++) {
        Map<String, Long> everywhere = new TreeMap<>();
        members
            .get(i)
            .forEachNewestInCluster(
                KV,
                (k, v) -> {
                  if (everywhere.put(k, v) != null) {
                    throw new AssertionError(k + " walked twice");
                  }
                });
        assertEquals(new TreeMap<>(live), everywhere, "the cluster's keys through member " + i);
      }
    } finally {
      closeAll(members);
    }
  }

  @Test
  void replicatedMembersWalkEveryKeyAndPrimariesEachKeyOnce() throws Exception {
    List<ClusteredTxMember> members = start(ClusterMode.REPLICATED);
    try {
      Map<String, Long> live = writeAndRemoveSome(members);
      for (int i = 0; i < members.size(); i++) {
        assertEquals(new TreeMap<>(live), walk(members.get(i), false), "member " + i);
        assertEquals(3, members.get(i).owners(segmentOf("k1A")).size());
      }
      assertPrimariesWalkEachKeyOnce(members, live);
      assertThrows(
          IllegalArgumentException.class,
          () ->
              members
                  .getFirst()
                  .forEachNewest(
                      TxCacheSpec.of("other", Codecs.strings(), Codecs.longs()),
                      false,
                      (k, v) -> {}));
      assertEquals(List.of(), members.getFirst().owners(SEGMENTS));
    } finally {
      closeAll(members);
    }
  }

  /**
   * A walk inside a transaction sees the keys at its snapshot (not a key created, changed or
   * removed by a commit after it), and a transaction that walked and writes cannot commit after
   * such a commit (a key created meanwhile would be missing from what it listed): it conflicts and
   * commits when run again. A transaction that walked without a concurrent change commits, and a
   * DISTRIBUTED member has no such walk.
   */
  @Test
  void aWalkInsideATransactionSeesItsSnapshotAndFailsItsCommitAfterAnotherCommitChangedTheKeys()
      throws Exception {
    List<ClusteredTxMember> members = start(ClusterMode.REPLICATED);
    try {
      Map<String, Long> live = writeAndRemoveSome(members);
      ClusteredTxMember m0 = members.get(0);
      TxCache<String, Long> kv0 = m0.store().cache(KV);
      TxCache<String, Long> kv1 = members.get(1).store().cache(KV);
      Transaction t = m0.store().begin();
      kv1.put("late", 1L); // committed through another member after t's snapshot
      kv1.remove(key(1));
      Map<String, Long> seen = new TreeMap<>();
      m0.forEachAt(t, KV, seen::put);
      assertEquals(new TreeMap<>(live), seen, "the keys at the snapshot, without the later ones");
      t.put(kv0, "count", (long) seen.size());
      assertThrows(TransactionConflictException.class, t::commit, "a key changed since the walk");
      TxTestCluster.await(() -> kv0.get("late") != null, "m0 applied the later commit");
      long counted =
          m0.store()
              .inTransaction(
                  tx -> {
                    Map<String, Long> now = new TreeMap<>();
                    m0.forEachAt(tx, KV, now::put);
                    tx.put(kv0, "count", (long) now.size());
                    return (long) now.size();
                  });
      assertEquals(live.size(), counted, "one key more (late), one fewer (removed)");
      assertEquals(counted, kv1.get("count"), "read through another member at once");
    } finally {
      closeAll(members);
    }
  }

  /** Each live key exactly once over the members' primary walks, from its segment's primary. */
  private static void assertPrimariesWalkEachKeyOnce(
      List<ClusteredTxMember> members, Map<String, Long> live) {
    Map<String, Long> union = new TreeMap<>();
    for (ClusteredTxMember m : members) {
      String self = NAMES.get(m);
      Map<String, Long> mine = walk(m, true);
      for (Map.Entry<String, Long> e : mine.entrySet()) {
        assertNull(union.put(e.getKey(), e.getValue()), e.getKey() + " walked twice");
        assertEquals(self, m.owners(segmentOf(e.getKey())).getFirst(), e.getKey());
      }
    }
    assertEquals(new TreeMap<>(live), union);
  }

  /** Writes KEYS keys through the members in turn, removes every fifth: returns the live ones. */
  private static Map<String, Long> writeAndRemoveSome(List<ClusteredTxMember> members) {
    Map<String, Long> live = new HashMap<>();
    for (int n = 0; n < KEYS; n++) {
      ClusteredTxMember m = members.get(n % members.size());
      TxCache<String, Long> kv = m.store().cache(KV);
      String key = key(n);
      long value = n * 7L;
      m.store()
          .inTransaction(
              tx -> {
                tx.put(kv, key, value);
                return null;
              });
      live.put(key, value);
    }
    for (int n = 0; n < KEYS; n += 5) {
      ClusteredTxMember m = members.get((n + 1) % members.size());
      m.store().cache(KV).remove(key(n));
      live.remove(key(n));
    }
    // a member applies a commit it took part in when the originator's APPLY arrives: wait until
    // every owner's copy is in place before walking
    TxTestCluster.await(
        () -> {
          for (ClusteredTxMember m : members) {
            Map<String, Long> owned = new HashMap<>();
            live.forEach(
                (k, v) -> {
                  if (m.owners(segmentOf(k)).contains(NAMES.get(m))) {
                    owned.put(k, v);
                  }
                });
            if (!owned.equals(walk(m, false))) {
              return false;
            }
          }
          return true;
        },
        "every owner holds its keys' newest values");
    return live;
  }

  /** Key n: its last character varies over 40 values, so its segment over all 16. */
  private static String key(int n) {
    return "k" + n + (char) ('A' + n % 40);
  }

  private static int segmentOf(String key) {
    return key.charAt(key.length() - 1) % SEGMENTS;
  }

  private static Map<String, Long> walk(ClusteredTxMember m, boolean primaryOnly) {
    Map<String, Long> out = new TreeMap<>();
    m.forEachNewest(
        KV,
        primaryOnly,
        (k, v) -> {
          if (out.put(k, v) != null) {
            throw new AssertionError(k + " walked twice");
          }
        });
    return out;
  }

  private static List<ClusteredTxMember> start(ClusterMode mode) throws Exception {
    String cluster =
        "member-walk-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
    List<ClusteredTxMember> members = new ArrayList<>();
    ExecutorService starter = Executors.newFixedThreadPool(3);
    try {
      List<Future<ClusteredTxMember>> started = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        String name = "m" + i;
        ClusterConfig config =
            ClusterConfig.builder()
                .stack(Stacks.IN_PROCESS)
                .clusterName(cluster)
                .nodeName(name)
                .timeout(Duration.ofSeconds(5))
                .segments(SEGMENTS)
                .partitioner(LAST_CHAR)
                .mode(mode)
                .owners(2)
                .initialClusterSize(3)
                .initialClusterTimeout(Duration.ofSeconds(60))
                .build();
        started.add(
            starter.submit(
                () -> {
                  ClusteredTxMember m =
                      ClusteredTxStore.builder(config).cache(KV).members(3).buildMember();
                  NAMES.put(m, name);
                  return m;
                }));
      }
      for (Future<ClusteredTxMember> f : started) {
        members.add(f.get(90, TimeUnit.SECONDS));
      }
    } catch (Exception e) {
      closeAll(members);
      throw e;
    } finally {
      starter.shutdownNow();
    }
    TxTestCluster.await(
        () -> {
          Set<Long> epochs = new HashSet<>();
          Set<List<String>> owners = new HashSet<>();
          for (ClusteredTxMember m : members) {
            if (!m.isReady() || m.members().size() != 3) {
              return false;
            }
            epochs.add(m.epoch());
            List<String> all = new ArrayList<>();
            for (int s = 0; s < SEGMENTS; s++) {
              all.addAll(m.owners(s));
            }
            owners.add(all);
          }
          return epochs.size() == 1 && owners.size() == 1;
        },
        "every member READY in one epoch of three, with the same owners");
    return members;
  }

  private static void closeAll(List<ClusteredTxMember> members) {
    for (ClusteredTxMember m : members) {
      m.close();
    }
  }
}
