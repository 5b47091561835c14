package dev.larder.cluster.internal.tx;

import static dev.larder.cluster.internal.tx.TxTestCluster.KV;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.tx.Isolation;
import dev.larder.tx.Transaction;
import dev.larder.tx.TransactionConflictException;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The commit paths of a clustered store, on three in-process members. */
@Timeout(120)
class ClusteredTxCommitTest {

  @Test
  void aTransferCommitsOnEveryMemberAndReadsSeeOneSnapshot() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null)) {
      c.awaitEpoch(3);
      c.kv(0).put("a", 100L);
      c.kv(0).put("b", 100L);
      TxStore s1 = c.store(1);
      TxCache<String, Long> kv1 = c.kv(1);
      s1.inTransaction(
          tx -> {
            tx.put(kv1, "a", tx.get(kv1, "a") - 10);
            tx.put(kv1, "b", tx.get(kv1, "b") + 10);
            return null;
          });
      for (int i = 0; i < 3; i++) {
        TxStore s = c.store(i);
        TxCache<String, Long> kv = c.kv(i);
        TxTestCluster.await(
            () -> s.inTransaction(tx -> tx.get(kv, "a") == 90L), "m" + i + " sees the transfer");
        try (Transaction tx = s.begin()) {
          assertEquals(90L, tx.get(kv, "a"));
          assertEquals(110L, tx.get(kv, "b"));
        }
      }
    }
  }

  @Test
  void theOriginatorReadsItsOwnCommitAtOnce() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null)) {
      c.awaitEpoch(3);
      for (int i = 0; i < 50; i++) {
        long v = i;
        int member = i % 3;
        c.store(member)
            .inTransaction(
                tx -> {
                  tx.put(c.kv(member), "k", v);
                  return null;
                });
        assertEquals(v, c.kv(member).get("k"));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Isolation.class)
  void concurrentUpdatesOfOneKeyOnTwoMembersConflict(Isolation level) throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, level, null)) {
      c.awaitEpoch(3);
      c.kv(0).put("x", 0L);
      TxTestCluster.await(() -> c.kv(1).get("x") != null, "m1 sees x");
      Transaction t1 = c.store(1).begin();
      Transaction t2 = c.store(2).begin();
      t1.put(c.kv(1), "x", t1.get(c.kv(1), "x") + 1);
      t2.put(c.kv(2), "x", t2.get(c.kv(2), "x") + 1);
      t1.commit();
      TransactionConflictException e = assertThrows(TransactionConflictException.class, t2::commit);
      assertEquals("x", e.keys().getFirst().key());
      TxTestCluster.await(() -> c.kv(2).get("x") == 1L, "m2 sees x = 1");
    }
  }

  @Test
  void writeSkewIsRefusedUnderSerializable() throws Exception {
    assertEquals(1, onCall(Isolation.SERIALIZABLE));
  }

  @Test
  void writeSkewHappensUnderSnapshotIsolation() throws Exception {
    assertEquals(0, onCall(Isolation.SNAPSHOT));
  }

  /** Two doctors on call on two members each go off call if the other is on: who is left? */
  private static long onCall(Isolation level) throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, level, null)) {
      c.awaitEpoch(3);
      c.kv(0).put("alice", 1L);
      c.kv(0).put("bob", 1L);
      TxTestCluster.await(
          () -> c.kv(1).get("bob") != null && c.kv(2).get("bob") != null,
          "both members see the doctors");
      Transaction t1 = c.store(1).begin();
      Transaction t2 = c.store(2).begin();
      if (t1.get(c.kv(1), "alice") + t1.get(c.kv(1), "bob") == 2) {
        t1.put(c.kv(1), "alice", 0L);
      }
      if (t2.get(c.kv(2), "alice") + t2.get(c.kv(2), "bob") == 2) {
        t2.put(c.kv(2), "bob", 0L);
      }
      t1.commit();
      try {
        t2.commit();
      } catch (TransactionConflictException refused) {
        assertEquals(Isolation.SERIALIZABLE, level, refused.toString());
      }
      TxStore s0 = c.store(0);
      TxCache<String, Long> kv = c.kv(0);
      TxTestCluster.await(() -> s0.inTransaction(tx -> tx.get(kv, "alice") == 0L), "alice off");
      Thread.sleep(200); // the second commit, if any, is applied by then on m0
      return s0.inTransaction(tx -> tx.get(kv, "alice") + tx.get(kv, "bob"));
    }
  }

  /**
   * A key's lock is held at its primary from PREPARE to APPLY: with the originator's APPLY to the
   * primary sent 1.5 s late, a transaction that writes the key meanwhile fails at once, and a write
   * outside a transaction waits, then applies after it.
   */
  @Test
  void aLockedKeyFailsATransactionAndDelaysABlindWrite() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null)) {
      c.awaitEpoch(3);
      MemberState m0 = c.engine(0).member();
      String key = keyNotPrimaryOn(m0);
      FrameFilter f = FrameFilter.install(c.engine(0));
      f.delay((to, frame) -> frame instanceof TxFrame.Apply, 1500);
      c.store(0)
          .inTransaction(
              tx -> {
                tx.put(c.kv(0), key, 1L);
                return null;
              });
      long start = System.nanoTime();
      Transaction t = c.store(2).begin();
      t.put(c.kv(2), key, 2L);
      TransactionConflictException refused =
          assertThrows(TransactionConflictException.class, t::commit);
      assertEquals(0, refused.keys().getFirst().committedAt(), "locked, not overwritten");
      c.kv(1).put(key, 3L);
      long waitedMillis = (System.nanoTime() - start) / 1_000_000;
      assertTrue(waitedMillis >= 1000, "the blind write did not wait: " + waitedMillis + " ms");
      for (int i = 0; i < 3; i++) {
        TxCache<String, Long> kv = c.kv(i);
        TxTestCluster.await(() -> Long.valueOf(3).equals(kv.get(key)), "the blind write won");
      }
    }
  }

  private static String keyNotPrimaryOn(MemberState member) {
    for (int i = 0; ; i++) {
      dev.larder.codec.ByteSink sink = new dev.larder.codec.ByteSink();
      KV.keyCodec().encode("locked" + i, sink);
      if (!member
          .epoch()
          .isPrimary(member.memberId(), new dev.larder.tx.internal.KeyRef(0, sink.toByteArray()))) {
        return "locked" + i;
      }
    }
  }

  @Test
  void removalsAreCommittedEverywhere() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null)) {
      c.awaitEpoch(3);
      c.kv(0).put("gone", 1L);
      c.store(1)
          .inTransaction(
              tx -> {
                assertEquals(1L, tx.get(c.kv(1), "gone"));
                tx.remove(c.kv(1), "gone");
                return null;
              });
      for (int i = 0; i < 3; i++) {
        TxCache<String, Long> kv = c.kv(i);
        TxTestCluster.await(() -> kv.get("gone") == null, "m" + i + " sees the removal");
      }
      assertNull(c.kv(2).get("gone"));
      assertTrue(c.kv(0).estimatedSize() == 0, "estimatedSize " + c.kv(0).estimatedSize());
    }
  }
}
