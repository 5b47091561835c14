package dev.larder.cluster;

import java.util.List;

/**
 * This member refused an operation because it does not see a majority of its cluster's stable
 * members ({@link PartitionHandling#QUORUM}): it may be on the minority side of a partition, whose
 * writes would be lost when the sides merge. Nothing was applied. Retrying succeeds once this
 * member is back in a view with a majority (after a merge, or when enough members have returned).
 */
public final class ClusterDegradedException extends ClusterException {
  private static final long serialVersionUID = 1L;

  private final List<String> present;
  private final List<String> stable;

  /**
   * @param node this member's name
   * @param operation what was refused ("write", "read")
   * @param present the stable members in this member's view
   * @param stable the cluster's stable members
   */
  public ClusterDegradedException(
      String node, String operation, List<String> present, List<String> stable) {
    super(
        node
            + " refused a "
            + operation
            + ": it sees "
            + present.size()
            + " of the "
            + stable.size()
            + " stable members "
            + stable
            + " (present: "
            + present
            + "), not a majority; partition handling QUORUM refuses until it merges with the"
            + " majority");
    this.present = List.copyOf(present);
    this.stable = List.copyOf(stable);
  }

  /** Returns the names of the stable members this member sees, never null. */
  public List<String> present() {
    return present;
  }

  /** Returns the names of the cluster's stable members, as this member knows them. */
  public List<String> stable() {
    return stable;
  }
}
