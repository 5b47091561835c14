package dev.larder.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.PartitionHandling;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.MergeView;
import org.jgroups.View;
import org.jgroups.ViewId;
import org.jgroups.util.NameCache;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Who loses a merge under the quorum rule, from the views alone: the side without a majority loses
 * even when JGroups names one of its members in the majority's subgroup.
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

  private Quorum quorumOf(Address self) {
    Quorum q = new Quorum(PartitionHandling.QUORUM, false, 3, () -> NameCache.get(self));
    q.install(view(m0, 1, m0, m1, m2), self);
    return q;
  }

  @Test
  void theCutOffMemberLosesWhenItsOwnSubgroupIsApart() {
    Quorum q = quorumOf(m0);
    q.install(view(m0, 2, m0), m0);
    assertFalse(q.available());
    View majority = view(m1, 3, m1, m2);
    assertTrue(q.install(merge(4, List.of(m1, m2, m0), majority, view(m0, 2, m0)), m0));
  }

  @Test
  void theCutOffMemberLosesEvenWhenTheMajoritysSubgroupNamesIt() {
    Quorum q = quorumOf(m0);
    q.install(view(m0, 2, m0), m0);
    // a merge retried after a partial one: the majority's subgroup lists m0 as well
    View named = view(m1, 3, m1, m2, m0);
    assertTrue(q.install(merge(4, List.of(m1, m2, m0), named, view(m0, 2, m0)), m0));
  }

  @Test
  void aMemberOfTheMajorityWins() {
    Quorum q = quorumOf(m1);
    q.install(view(m1, 2, m1, m2), m1);
    assertTrue(q.available());
    View majority = view(m1, 2, m1, m2);
    assertFalse(q.install(merge(4, List.of(m1, m2, m0), majority, view(m0, 2, m0)), m1));
  }

  @Test
  void noSideLosesAnEvenSplit() {
    Address m3 = member("qm-m3");
    Quorum q = new Quorum(PartitionHandling.QUORUM, false, 4, () -> "qm-m0");
    q.install(view(m0, 1, m0, m1, m2, m3), m0);
    q.install(view(m0, 2, m0, m1), m0);
    assertFalse(q.available());
    assertFalse(
        q.install(merge(5, List.of(m0, m1, m2, m3), view(m0, 2, m0, m1), view(m2, 2, m2, m3)), m0));
  }
}
