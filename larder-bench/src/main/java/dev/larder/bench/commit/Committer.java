package dev.larder.bench.commit;

/**
 * One durable store under test in the commit benchmark: commits one key-value write per call, from
 * many threads at once, returning only when the store says it is committed.
 */
interface Committer extends AutoCloseable {

  /**
   * Commits one write, returning once the store says it is committed.
   *
   * @param key the key
   * @param value the value
   */
  void commit(long key, byte[] value);

  /** Returns commits made durable per force since the last call, or NaN if not known. */
  default double commitsPerForce() {
    return Double.NaN;
  }

  @Override
  void close();
}
