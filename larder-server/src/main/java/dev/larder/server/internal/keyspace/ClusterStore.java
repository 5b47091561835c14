package dev.larder.server.internal.keyspace;

/**
 * What a keyspace over a clustered cache asks of the member it runs on, beyond the cache itself:
 * whether a put's acknowledgement may be sent later than the put returns, and what its expiry sweep
 * needs to stay idle while no value with an expiry reaches this member.
 *
 * <p>Implementations are thread-safe.
 */
public interface ClusterStore {

  /**
   * Stores a value whose acknowledgement the command running on this thread may answer later (the
   * server's request path collects it and holds the command's reply until the owners acknowledged
   * it), if this thread's command may: then the value has been applied on its primary, or the write
   * failed and threw, when this returns true.
   *
   * @param storedKey the stored key (database byte, then key)
   * @param storedValue the encoded value
   * @return false if the caller must store it with a put that waits for the owners
   */
  boolean putDeferred(byte[] storedKey, byte[] storedValue);

  /**
   * Returns how many values with an expiry this member's store has taken, whichever member took the
   * write, including copies it holds as a backup and entries state transfer brought: the sweep
   * stays idle while the count stands still.
   */
  long expiringStored();

  /**
   * Returns whether this member's sweep removes the key when its value has expired: it is the key's
   * primary, so that each key is swept by one member.
   *
   * @param storedKey the stored key
   */
  boolean sweeps(byte[] storedKey);
}
