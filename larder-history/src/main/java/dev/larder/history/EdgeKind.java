package dev.larder.history;

/** The kinds of edge of a dependency graph (Adya's, plus the two orders a client observes). */
public enum EdgeKind {
  /** Write-write: the target wrote the version of a key right after the source's. */
  WW("ww"),
  /** Write-read: the target read a version the source wrote. */
  WR("wr"),
  /** Read-write (anti-dependency): the source read a version that the target's write replaced. */
  RW("rw"),
  /** Process order: the same client ran the source, then the target. */
  PROCESS("process"),
  /** Real-time order: the source completed before the target began. */
  REALTIME("realtime");

  private final String label;

  EdgeKind(String label) {
    this.label = label;
  }

  /** Returns true for ww, wr and rw. */
  public boolean isDependency() {
    return this == WW || this == WR || this == RW;
  }

  @Override
  public String toString() {
    return label;
  }
}
