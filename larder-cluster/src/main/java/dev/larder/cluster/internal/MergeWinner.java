package dev.larder.cluster.internal;

import java.util.List;
import org.jgroups.Address;
import org.jgroups.MergeView;
import org.jgroups.View;

/**
 * Which side of a healed partition keeps its entries. The winner is the largest subgroup of a
 * {@link MergeView}; among equally large ones, the one holding the merged view's coordinator, else
 * the one whose first member comes first in the merged view. Every member sees the same MergeView,
 * so all agree without a message. Members of the other sides drop all their segments and receive
 * them again from the winning side; writes made on those sides during the partition are lost. This
 * is the rule of {@link dev.larder.cluster.PartitionHandling#ALLOW_ALL}, and the fallback of {@link
 * Quorum} when no side held a majority.
 */
final class MergeWinner {

  private MergeWinner() {}

  /** Returns the subgroup of a merge view whose entries win, or null if not a merge view. */
  static View of(View view) {
    if (!(view instanceof MergeView merge)) {
      return null;
    }
    View winner = null;
    for (View sub : merge.getSubgroups()) {
      if (winner == null || beats(sub, winner, view)) {
        winner = sub;
      }
    }
    return winner;
  }

  private static boolean beats(View a, View b, View merged) {
    if (a.size() != b.size()) {
      return a.size() > b.size();
    }
    boolean aCoord = a.containsMember(merged.getCoord());
    if (aCoord != b.containsMember(merged.getCoord())) {
      return aCoord;
    }
    List<Address> order = merged.getMembers();
    return order.indexOf(a.getCoord()) < order.indexOf(b.getCoord());
  }
}
