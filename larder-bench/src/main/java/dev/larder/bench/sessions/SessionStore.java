package dev.larder.bench.sessions;

/**
 * Where the session endpoint keeps its sessions. Implementations are thread-safe: the endpoint
 * calls {@link #touch} from many request threads at once.
 */
interface SessionStore extends AutoCloseable {

  /**
   * In one transaction: reads every object of the session (a new session if absent), replaces each
   * with its {@link SessionObject#touched() touched} copy, and commits, returning once the store
   * acknowledges the commit (durably when its log is on).
   *
   * @param session the session's number
   * @return the session's counter after this request
   */
  long touch(long session);

  /** Returns commits that conflicted with a concurrent request and were retried. */
  long retries();

  @Override
  void close();
}
