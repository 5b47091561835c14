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
 * @param members the view's members, for membership tests
 */
record Topology(
    long viewId, View view, ConsistentHash hash, ConsistentHash previous, Set<Address> members) {

  static Topology of(View view, ConsistentHash hash, ConsistentHash previous) {
    return new Topology(
        view.getViewId().getId(),
        view,
        hash,
        previous,
        Set.copyOf(new HashSet<>(view.getMembers())));
  }
}
