package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusteredTxStore;
import dev.larder.cluster.Stacks;
import dev.larder.tx.Isolation;
import dev.larder.tx.Transaction;
import dev.larder.tx.TransactionConflictException;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxStore;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A DISTRIBUTED clustered store (three in-process members, two owners of each key): each member
 * holds only the keys it owns, reads the others from their owners at its snapshot, and every commit
 * survives members leaving and joining (segments adopted from their holders).
 */
@Timeout(120)
class ClusteredTxDistributedTest {

  private static final int KEYS = 60;

  @Test
  void eachMemberHoldsOnlyItsKeysAndReadsTheOthersAtItsSnapshot() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null, 2)) {
      c.awaitEpoch(3);
      for (int k = 0; k < KEYS; k++) {
        c.kv(k % 3).put("k" + k, 100L);
      }
      // transfers across keys whose owners differ, each run on a member that owns neither key
      for (int k = 0; k + 1 < KEYS; k += 2) {
        String a = "k" + k;
        String b = "k" + (k + 1);
        int runner = notOwningEither(c, a, b);
        TxStore s = c.store(runner);
        TxCache<String, Long> kv = c.kv(runner);
        s.inTransaction(
            tx -> {
              tx.put(kv, a, tx.get(kv, a) - 10);
              tx.put(kv, b, tx.get(kv, b) + 10);
              return null;
            });
      }
      for (int i = 0; i < 3; i++) {
        TxStore s = c.store(i);
        TxCache<String, Long> kv = c.kv(i);
        int m = i;
        long sum =
            s.inTransaction(
                tx -> {
                  long total = 0;
                  for (int k = 0; k < KEYS; k++) {
                    long v = tx.get(kv, "k" + k);
                    assertEquals(k % 2 == 0 ? 90L : 110L, v, "k" + k + " on m" + m);
                    total += v;
                  }
                  return total;
                });
        assertEquals(100L * KEYS, sum);
      }
      // every key on exactly its two owners
      int held = 0;
      for (int i = 0; i < 3; i++) {
        held += (int) c.engine(i).estimatedSize(0);
      }
      assertEquals(2 * KEYS, held, "copies of " + KEYS + " keys with two owners");
      for (int k = 0; k < KEYS; k++) {
        assertEquals(2, c.ownersOf("k" + k).size());
      }
    }
  }

  private static int notOwningEither(TxTestCluster c, String a, String b) {
    for (int i = 0; i < c.size; i++) {
      if (!c.ownersOf(a).contains(i) && !c.ownersOf(b).contains(i)) {
        return i;
      }
    }
    return c.ownersOf(a).contains(0) ? (c.ownersOf(a).contains(1) ? 2 : 1) : 0;
  }

  @Test
  void concurrentUpdatesFromNonOwnersConflictAndWriteSkewIsRefused() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null, 2)) {
      c.awaitEpoch(3);
      c.kv(0).put("x", 0L);
      c.kv(0).put("alice", 1L);
      c.kv(0).put("bob", 1L);
      Transaction t1 = c.store(1).begin();
      Transaction t2 = c.store(2).begin();
      t1.put(c.kv(1), "x", t1.get(c.kv(1), "x") + 1);
      t2.put(c.kv(2), "x", t2.get(c.kv(2), "x") + 1);
      t1.commit();
      assertThrows(TransactionConflictException.class, t2::commit);
      Transaction d1 = c.store(1).begin();
      Transaction d2 = c.store(2).begin();
      assertEquals(2L, d1.get(c.kv(1), "alice") + d1.get(c.kv(1), "bob"));
      assertEquals(2L, d2.get(c.kv(2), "alice") + d2.get(c.kv(2), "bob"));
      d1.put(c.kv(1), "alice", 0L);
      d2.put(c.kv(2), "bob", 0L);
      d1.commit();
      assertThrows(TransactionConflictException.class, d2::commit);
      assertEquals(1L, (long) c.store(0).inTransaction(tx -> tx.get(c.kv(0), "x")));
      assertEquals(1L, (long) c.store(0).inTransaction(tx -> tx.get(c.kv(0), "bob")));
    }
  }

  /**
   * Members crash and join one at a time; after each change every committed value is read back from
   * every member (the segments the crashed member owned are adopted by their new owners from the
   * surviving holder), and the keys take new commits.
   */
  @Test
  void commitsSurviveMembersLeavingAndJoining() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null, 2)) {
      c.awaitEpoch(3);
      long round = 1;
      writeAll(c, 0, round);
      for (int victim = 0; victim < 3; victim++) {
        c.crash(victim);
        c.awaitEpoch(2);
        int survivor = (victim + 1) % 3;
        checkAll(c, round);
        writeAll(c, survivor, ++round);
        c.start(victim); // a new member (no log): it adopts the segments it owns
        c.awaitEpoch(3);
        checkAll(c, round);
        writeAll(c, victim, ++round);
      }
      checkAll(c, round);
    }
  }

  private static void writeAll(TxTestCluster c, int member, long value) {
    TxStore s = c.store(member);
    TxCache<String, Long> kv = c.kv(member);
    for (int k = 0; k < KEYS; k += 6) {
      int from = k;
      s.inTransaction(
          tx -> {
            for (int j = from; j < Math.min(KEYS, from + 6); j++) {
              tx.put(kv, "k" + j, value);
            }
            return null;
          });
    }
  }

  private static void checkAll(TxTestCluster c, long value) {
    for (int i = 0; i < c.size; i++) {
      if (c.store(i) == null) {
        continue;
      }
      TxStore s = c.store(i);
      TxCache<String, Long> kv = c.kv(i);
      int m = i;
      s.inTransaction(
          tx -> {
            for (int k = 0; k < KEYS; k++) {
              assertEquals(
                  Long.valueOf(value), tx.get(kv, "k" + k), "k" + k + " on m" + m + c.describe());
            }
            return null;
          });
    }
  }

  @Test
  void tooFewOwnersForAMajorityAreRefused() {
    ClusterConfig five =
        ClusterConfig.builder()
            .stack(Stacks.IN_PROCESS)
            .clusterName("refused")
            .mode(ClusterMode.DISTRIBUTED)
            .owners(2)
            .initialClusterSize(5)
            .build();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ClusteredTxStore.builder(five).cache(TxTestCluster.KV).build());
    assertTrue(e.getMessage().contains("owners >= 3"), e.getMessage());
    assertTrue(List.of(e.getMessage()).getFirst().contains("5 members"), e.getMessage());
  }
}
