package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.tx.Isolation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jgroups.Address;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DISTRIBUTED commits ask only the members they need: PREPARE, APPLY and ABORT go to the owners of
 * the written keys and the primaries of the keys validated, DECIDE to them and enough further
 * members for a majority, and a decider that holds none of the keys carries the decision into the
 * next epoch. Four in-process members, two owners of each key (a majority is three).
 */
@Timeout(120)
class ClusteredTxParticipantsTest {

  /** A frame member {@code from} sent to {@code to}. */
  private record Sent(int from, Address to, TxFrame frame) {}

  private static List<Sent> record(TxTestCluster c) throws Exception {
    List<Sent> sent = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < c.size; i++) {
      int from = i;
      FrameFilter.install(c.engine(i))
          .drop(
              (to, f) -> {
                sent.add(new Sent(from, to, f));
                return false;
              });
    }
    return sent;
  }

  /** The members {@code from} sent frames of {@code type} to. */
  private static Set<Address> destinations(
      List<Sent> sent, int from, Class<? extends TxFrame> type) {
    Set<Address> out = new HashSet<>();
    synchronized (sent) {
      for (Sent s : sent) {
        if (s.from() == from && type.isInstance(s.frame())) {
          out.add(s.to());
        }
      }
    }
    return out;
  }

  private static Set<Address> addresses(TxTestCluster c, List<Integer> members) {
    Set<Address> out = new HashSet<>();
    for (int i : members) {
      out.add(c.address(i));
    }
    return out;
  }

  /** A key that member {@code owner} owns with exactly one other member. */
  private static String keyOwnedBy(TxTestCluster c, int owner, String prefix) {
    for (int n = 0; n < 10_000; n++) {
      String key = prefix + n;
      if (c.ownersOf(key).contains(owner)) {
        return key;
      }
    }
    throw new AssertionError("member " + owner + " owns none of 10,000 keys");
  }

  private static int otherOwner(TxTestCluster c, String key, int owner) {
    return c.ownersOf(key).stream().filter(i -> i != owner).findFirst().orElseThrow();
  }

  @Test
  void nonOwnersReceiveNoPrepareOrApply() throws Exception {
    try (TxTestCluster c = new TxTestCluster(4, Isolation.SERIALIZABLE, null, 2)) {
      c.awaitEpoch(4);
      int origin = 0;
      String w = keyOwnedBy(c, origin, "w");
      int partner = otherOwner(c, w, origin);
      String r = null;
      for (int n = 0; r == null; n++) {
        int p = c.primaryOf("r" + n);
        if (p != origin && p != partner) {
          r = "r" + n;
        }
      }
      int reader = c.primaryOf(r);
      c.kv(origin).put(r, 7L);
      c.kv(origin).put(w, 1L);
      List<Sent> sent = record(c);
      String readKey = r;
      // reads r (validated at its primary), writes w (held by its two owners)
      c.store(origin)
          .inTransaction(
              tx -> {
                tx.put(c.kv(origin), w, tx.get(c.kv(origin), readKey) + 1);
                return null;
              });
      Set<Address> expected = addresses(c, List.of(partner, reader));
      assertEquals(expected, destinations(sent, origin, TxFrame.Prepare.class), c.describe());
      assertEquals(expected, destinations(sent, origin, TxFrame.Apply.class), c.describe());
      assertEquals(expected, destinations(sent, origin, TxFrame.Decide.class), "a majority");
      sent.clear();
      // writes w only: its owners take part; one further member decides, for a majority of 3
      c.store(origin)
          .inTransaction(
              tx -> {
                tx.put(c.kv(origin), w, tx.get(c.kv(origin), w) + 1);
                return null;
              });
      assertEquals(
          Set.of(c.address(partner)),
          destinations(sent, origin, TxFrame.Prepare.class),
          c.describe());
      assertEquals(Set.of(c.address(partner)), destinations(sent, origin, TxFrame.Apply.class));
      Set<Address> deciders = destinations(sent, origin, TxFrame.Decide.class);
      assertEquals(2, deciders.size(), "deciders besides the originator: " + deciders);
      assertTrue(deciders.contains(c.address(partner)), deciders.toString());
      for (int i = 0; i < c.size; i++) {
        int m = i;
        assertEquals(9L, (long) c.store(i).inTransaction(tx -> tx.get(c.kv(m), w)), "on m" + i);
      }
    }
  }

  /**
   * The decision reaches the originator and a decider that holds none of the key, not the key's
   * other owner; the originator crashes. The reconfiguration learns the decision from the decider
   * alone and the owner commits the write.
   */
  @Test
  void aDeciderThatHoldsNoKeyCarriesTheDecisionToTheNextEpoch() throws Exception {
    try (TxTestCluster c = new TxTestCluster(4, Isolation.SERIALIZABLE, null, 2)) {
      c.awaitEpoch(4);
      int origin = 0;
      String w = keyOwnedBy(c, origin, "w");
      int partner = otherOwner(c, w, origin);
      c.kv(origin).put(w, 1L);
      FrameFilter filter = FrameFilter.install(c.engine(origin));
      Address partnerAddress = c.address(partner);
      filter.drop((to, f) -> f instanceof TxFrame.Decide && to.equals(partnerAddress));
      List<Sent> sent = record(c); // above the filter: sees the dropped frame too
      int[] before = new int[c.size]; // decisions remembered in the epoch so far (the put's)
      for (int i = 0; i < c.size; i++) {
        before[i] = c.engine(i).member().appliedInEpochCount();
      }
      CompletableFuture<Long> commit =
          CompletableFuture.supplyAsync(
              () ->
                  c.store(origin)
                      .inTransaction(
                          tx -> {
                            tx.put(c.kv(origin), w, 2L);
                            return 0L;
                          }));
      TxTestCluster.await(
          () ->
              destinations(sent, origin, TxFrame.Decide.class).size() == 2
                  && decider(c, sent, origin, partner) >= 0
                  && c.engine(decider(c, sent, origin, partner)).member().appliedInEpochCount()
                      == before[decider(c, sent, origin, partner)] + 1,
          "a decider that owns no key logged the decision");
      int decider = decider(c, sent, origin, partner);
      assertEquals(1, c.engine(partner).member().pendingCount());
      assertEquals(0, c.engine(partner).member().decidedCount(), "the owner's DECIDE was dropped");
      c.crash(origin);
      c.awaitEpoch(3);
      for (int i = 1; i < c.size; i++) {
        int m = i;
        assertEquals(
            2L,
            (long) c.store(i).inTransaction(tx -> tx.get(c.kv(m), w)),
            "on m" + i + " (decider m" + decider + ")" + c.describe());
      }
      try {
        commit.get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        // the originator crashed before it learned the outcome: in doubt, or its store closed
        if (!(e.getCause() instanceof ClusterTimeoutException)
            && !(e.getCause() instanceof IllegalStateException)) {
          fail("the crashed originator's commit ended with " + e.getCause(), e.getCause());
        }
      }
    }
  }

  /** The member other than the key's owners that {@code origin} sent DECIDE to, -1 if none. */
  private static int decider(TxTestCluster c, List<Sent> sent, int origin, int partner) {
    Set<Address> to = destinations(sent, origin, TxFrame.Decide.class);
    for (int i = 0; i < c.size; i++) {
      if (i != origin && i != partner && to.contains(c.address(i))) {
        return i;
      }
    }
    return -1;
  }
}
