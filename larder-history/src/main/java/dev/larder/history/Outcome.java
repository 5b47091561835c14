package dev.larder.history;

/** How a recorded transaction ended, as its client saw it. */
public enum Outcome {
  /** The commit was acknowledged. */
  COMMITTED,
  /** The transaction was refused or rolled back: none of its writes may ever be seen. */
  ABORTED,
  /**
   * The client does not know (a timeout, or its member died): its writes may have been applied. Its
   * reads are not checked, its writes may be read.
   */
  UNKNOWN
}
