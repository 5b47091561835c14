package dev.larder.history;

/**
 * What the checker reports. The cycle kinds follow Adya's phenomena as Elle names them: a cycle is
 * classified by the dependency edges it needs.
 */
public enum AnomalyKind {
  /** Write cycle: a cycle of ww edges only. */
  G0("G0"),
  /** Aborted read: a committed transaction read a value written by an aborted one. */
  G1A("G1a"),
  /** Intermediate read: a committed transaction read a value that its writer later overwrote. */
  G1B("G1b"),
  /** Circular information flow: a cycle of ww and wr edges, at least one wr. */
  G1C("G1c"),
  /** Read skew: a cycle with exactly one rw edge (the rest ww or wr). */
  G_SINGLE("G-single"),
  /** Anti-dependency cycle with two or more rw edges (write skew). */
  G2("G2"),
  /**
   * Two committed transactions read the same version of a key and both wrote that key (each would
   * have overwritten the other's update without seeing it).
   */
  LOST_UPDATE("lost-update"),
  /**
   * Two reads of a list that are not prefixes of one another: no order of appends explains both.
   */
  INCOMPATIBLE_ORDER("incompatible-order"),
  /** A committed transaction read a value that no transaction wrote. */
  GARBAGE_READ("garbage-read");

  private final String label;

  AnomalyKind(String label) {
    this.label = label;
  }

  /** Returns true for the kinds found as cycles of the dependency graph. */
  public boolean isCycle() {
    return this == G0 || this == G1C || this == G_SINGLE || this == G2;
  }

  /** Returns the name Elle and Adya use, e.g. {@code G-single}. */
  public String label() {
    return label;
  }

  @Override
  public String toString() {
    return label;
  }
}
