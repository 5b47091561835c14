package dev.larder.cluster.internal;

import java.util.HashSet;
import java.util.Set;
import org.jgroups.Address;
import org.jgroups.View;

/**
 * One installed view and its ownership. Immutable.
 *
 * @param viewId the JGroups view id
 * @param view the view
 * @param hash who owns what in this view
 * @param previous ownership in the view before, or null for this member's first view
 * @param previousViewId the id of the view before, or -1 for this member's first view
 * @param members the view's members, for membership tests
 */
record Topology(
    long viewId,
    View view,
    ConsistentHash hash,
    ConsistentHash previous,
    long previousViewId,
    Set<Address> members) {

  /**
   * @param old the topology installed before, or null for this member's first view
   */
  static Topology of(View view, ConsistentHash hash, Topology old) {
    return new Topology(
        view.getViewId().getId(),
        view,
        hash,
        old == null ? null : old.hash(),
        old == null ? -1 : old.viewId(),
        Set.copyOf(new HashSet<>(view.getMembers())));
  }
}
