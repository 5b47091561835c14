package dev.larder.tx.internal;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The write sets of recent commits, for conflict checks: for each key, the sequence of the last
 * commit that wrote it, kept while some active snapshot precedes that commit. GemStone's "union of
 * the write sets committed since the view began", indexed by key so that a check costs one lookup
 * per key rather than a walk of the history. Used under the commit lock only.
 */
public final class CommitHistory {

  private final Map<KeyRef, Long> lastWrite = new HashMap<>();
  private final ArrayDeque<Commit> commits = new ArrayDeque<>();

  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  private record Commit(long sequence, KeyRef[] keys) {}

  /**
   * Returns the sequence of the last commit that wrote it, if still kept, else 0.
   *
   * @param key a key
   */
  public long lastWrite(KeyRef key) {
    return lastWrite.getOrDefault(key, 0L);
  }

  /**
   * Records a commit's write set.
   *
   * @param sequence a new commit's sequence
   * @param keys its write set
   */
  public void record(long sequence, Collection<KeyRef> keys) {
    for (KeyRef k : keys) {
      lastWrite.put(k, sequence);
    }
    commits.addLast(new Commit(sequence, keys.toArray(KeyRef[]::new)));
  }

  /**
   * Forgets commits at or before {@code horizon} (no active or future snapshot precedes them), and
   * the superseded versions they made that nobody can read any more.
   *
   * @param horizon the oldest snapshot that may still commit or read
   * @param versions the side table to trim alongside
   */
  public void trim(long horizon, VersionTable versions) {
    while (!commits.isEmpty() && commits.peekFirst().sequence() <= horizon) {
      Commit c = commits.pollFirst();
      for (KeyRef k : c.keys()) {
        lastWrite.remove(k, c.sequence());
        versions.trim(k, horizon);
      }
    }
  }

  /** Returns commits kept. */
  public int size() {
    return commits.size();
  }
}
