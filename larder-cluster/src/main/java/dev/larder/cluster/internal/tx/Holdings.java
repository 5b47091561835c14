package dev.larder.cluster.internal.tx;

import java.util.List;

/**
 * Which members of a reconfiguration's proposal hold each segment's newest state, and so which
 * members keep a segment, adopt it, or drop it when the proposal is installed
 * (docs/design/cluster-transactions.md, "Segments, holders and adoption"). Immutable.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Each member reports, per segment, the epoch at which it holds the segment whole (0: it does
 * not). The <b>holders</b> of a segment are the members reporting the highest such epoch; if that
 * is 0 nobody ever held it, and its owners start it empty. In the new epoch an owner that is a
 * holder keeps the segment; any other owner adopts it from a holder; a member that does not own it
 * drops its copy once every owner keeps it (no adopter will ask for it).
 */
final class Holdings {

  private final List<TxFrame.Member> members;
  private final List<long[]> held;
  private final long[] newest;

  /**
   * @param members the proposal's members
   * @param held per member (same order), its held epoch of each segment
   */
  Holdings(List<TxFrame.Member> members, List<long[]> held) {
    if (members.size() != held.size()) {
      throw new IllegalArgumentException(members.size() + " members, " + held.size() + " holdings");
    }
    this.members = members;
    this.held = held;
    int segments = held.isEmpty() ? 0 : held.getFirst().length;
    this.newest = new long[segments];
    for (long[] h : held) {
      for (int s = 0; s < segments; s++) {
        newest[s] = Math.max(newest[s], h[s]);
      }
    }
  }

  /** Returns true if the member holds the segment's newest state, or nobody held it. */
  boolean isHolder(long memberId, int segment) {
    if (newest[segment] == 0) {
      return true;
    }
    int i = indexOf(memberId);
    return i >= 0 && held.get(i)[segment] == newest[segment];
  }

  /**
   * Returns the ids of the members holding the segment's newest state (empty if nobody held it).
   */
  long[] holders(int segment) {
    if (newest[segment] == 0) {
      return new long[0];
    }
    return java.util.stream.IntStream.range(0, members.size())
        .filter(i -> held.get(i)[segment] == newest[segment])
        .mapToLong(i -> members.get(i).id())
        .toArray();
  }

  /** Returns true if the member owns the segment in {@code next} and holds it: it keeps it. */
  boolean keeps(Epoch next, long memberId, int segment) {
    return next.ownsSegment(memberId, segment) && isHolder(memberId, segment);
  }

  /** Returns true if every owner of the segment in {@code next} keeps it. */
  boolean everyOwnerKeeps(Epoch next, int segment) {
    for (long id : next.ownersOf(segment)) {
      if (!isHolder(id, segment)) {
        return false;
      }
    }
    return true;
  }

  private int indexOf(long memberId) {
    for (int i = 0; i < members.size(); i++) {
      if (members.get(i).id() == memberId) {
        return i;
      }
    }
    return -1;
  }
}
