package dev.larder.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusterDegradedException;
import dev.larder.cluster.PartitionHandling;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jgroups.Address;
import org.jgroups.MergeView;
import org.jgroups.View;
import org.jgroups.ViewId;
import org.jgroups.util.NameCache;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Availability and merges under the quorum rule, from views and INSTALLED reports alone: a view
 * counts only once a majority of the stable members installed it, and a merge keeps the entries of
 * the members last available in the newest view, whatever subgroups JGroups lists.
 */
class QuorumMergeTest {
  private final Address m0 = member("qm-m0");
  private final Address m1 = member("qm-m1");
  private final Address m2 = member("qm-m2");

  private static Address member(String name) {
    Address a = UUID.randomUUID();
    NameCache.add(a, name);
    return a;
  }

  private static View view(Address coord, long id, Address... members) {
    return View.create(coord, id, members);
  }

  private static MergeView merge(long id, List<Address> members, View... subgroups) {
    return new MergeView(new ViewId(members.get(0), id), members, List.of(subgroups));
  }

  private static Quorum quorum(Address self, int initialClusterSize) {
    return new Quorum(
        PartitionHandling.QUORUM,
        false,
        initialClusterSize,
        () -> NameCache.get(self),
        Duration.ofMillis(50));
  }

  /** Installs a view at {@code q} (member {@code self}) and reports it installed by {@code by}. */
  private static void install(Quorum q, Address self, View v, Address... by) {
    q.install(v, self, Map.of());
    for (Address a : by) {
      q.report(key(v), NameCache.get(a), 0);
    }
  }

  private static Quorum.ViewKey key(View v) {
    return new Quorum.ViewKey(v.getViewId().getId(), ViewConfirmations.creatorOf(v));
  }

  /** A quorum at {@code self}, available in a first view of m0, m1, m2 confirmed by all. */
  private Quorum quorumOf(Address self) {
    Quorum q = quorum(self, 3);
    install(q, self, view(m0, 1, m0, m1, m2), m0, m1, m2);
    assertTrue(q.available());
    assertEquals(1, q.lastAvailable());
    return q;
  }

  @Test
  void theCutOffMemberLosesToTheMembersAvailableSince() {
    Quorum q = quorumOf(m0);
    install(q, m0, view(m0, 2, m0));
    assertFalse(q.available());
    View majority = view(m1, 3, m1, m2);
    MergeView merged = merge(4, List.of(m1, m2, m0), majority, view(m0, 2, m0));
    assertTrue(q.install(merged, m0, Map.of("qm-m1", 3L, "qm-m2", 3L)));
    assertEquals(List.of(m1, m2), q.winner().getMembers());
  }

  @Test
  void theCutOffMemberLosesEvenWhenTheMajoritysSubgroupNamesIt() {
    Quorum q = quorumOf(m0);
    install(q, m0, view(m0, 2, m0));
    // a merge retried after a partial one: the majority's subgroup lists m0 as well
    View named = view(m1, 3, m1, m2, m0);
    assertTrue(
        q.install(
            merge(4, List.of(m1, m2, m0), named, view(m0, 2, m0)),
            m0,
            Map.of("qm-m1", 3L, "qm-m2", 3L)));
  }

  @Test
  void aMemberOfTheMajorityWins() {
    Quorum q = quorumOf(m1);
    install(q, m1, view(m1, 2, m1, m2), m2);
    assertTrue(q.available());
    assertFalse(
        q.install(
            merge(4, List.of(m1, m2, m0), view(m1, 2, m1, m2), view(m0, 2, m0)),
            m1,
            Map.of("qm-m0", 1L, "qm-m2", 2L)));
  }

  @Test
  void noMemberLosesAnEvenSplit() {
    Address m3 = member("qm-m3");
    Quorum q = quorum(m0, 4);
    install(q, m0, view(m0, 1, m0, m1, m2, m3), m1, m2, m3);
    install(q, m0, view(m0, 2, m0, m1), m1);
    assertFalse(q.available());
    assertFalse(
        q.install(
            merge(5, List.of(m0, m1, m2, m3), view(m0, 2, m0, m1), view(m2, 2, m2, m3)),
            m0,
            Map.of("qm-m1", 1L, "qm-m2", 1L, "qm-m3", 1L)));
    assertEquals(null, q.winner());
  }

  @Test
  void aViewWithAMajorityCountsOnlyOnceAMajorityInstalledIt() {
    Quorum q = quorumOf(m1);
    // a cut of m0-m1 alone: m1 makes a view with m2, which installed m0's view of the same number
    View own = view(m1, 2, m1, m2);
    install(q, m1, own);
    q.report(key(view(m0, 2, m0, m2)), "qm-m2", 1);
    assertFalse(q.available());
    assertTrue(q.majorityInView());
    ClusterDegradedException refused = assertThrows(ClusterDegradedException.class, q::checkWrite);
    assertEquals(List.of("qm-m1"), refused.present());
    q.report(key(own), "qm-m2", 1);
    assertTrue(q.available());
    assertEquals(2, q.lastAvailable());
  }

  @Test
  void aReportArrivingBeforeItsViewCountsOnceTheViewIsInstalled() {
    Quorum q = quorumOf(m0);
    View next = view(m0, 2, m0, m1, m2);
    q.report(key(next), "qm-m1", 1);
    q.install(next, m0, Map.of());
    assertTrue(q.available());
  }

  @Test
  void aMergeOfOverlappingSubgroupsKeepsTheMemberAvailableLast() {
    // m0-m1 cut: m2 installed m0's view [m0, m2] and was available there; m1's view [m1, m2] of
    // the same number was never installed by m2. Then m0-m2 cut: m2 alone, and MERGE3 merges
    // m2's [m2] with m1's [m1, m2], subgroups that overlap
    Quorum atM2 = quorumOf(m2);
    install(atM2, m2, view(m0, 2, m0, m2), m0);
    assertTrue(atM2.available());
    install(atM2, m2, view(m2, 3, m2));
    Quorum atM1 = quorumOf(m1);
    install(atM1, m1, view(m1, 2, m1, m2));
    assertFalse(atM1.available());
    MergeView merged = merge(4, List.of(m1, m2), view(m2, 3, m2), view(m1, 2, m1, m2));
    assertFalse(atM2.install(merged, m2, Map.of("qm-m1", atM1.lastAvailable())));
    assertTrue(atM1.install(merged, m1, Map.of("qm-m2", 2L)));
    assertEquals(List.of(m2), atM1.winner().getMembers());
  }

  @Test
  void aMemberThatFoundedAClusterAloneLosesToTheRunningCluster() {
    // restarted with initialClusterSize 1, it did not find the running cluster and founded its own
    Quorum q = quorum(m0, 1);
    install(q, m0, view(m0, 1, m0));
    assertTrue(q.available(), "alone, it is its own majority");
    MergeView merged = merge(6, List.of(m1, m2, m0), view(m1, 5, m1, m2), view(m0, 1, m0));
    assertTrue(q.install(merged, m0, Map.of("qm-m1", 5L, "qm-m2", 5L)));
  }
}
