package dev.larder.jcache.internal;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Striped, reentrant locks that make each JCache operation atomic for its key: the read of the
 * current entry, the writer or loader call, the store write and the synchronous listeners all
 * happen under the key's stripe, as the JCache specification's atomicity and ordering rules ask.
 * Reentrant, so a listener or writer may call back into the cache on the same thread.
 *
 * <p>Stripes are chosen by the key's {@code hashCode}, spread; keys that are equal must hash alike
 * (the JCache key contract). Operations on many keys take one key's lock at a time, never two, so
 * stripes cannot deadlock.
 */
final class KeyLocks {

  private static final int STRIPES = 64;

  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

  KeyLocks() {
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  ReentrantLock lockFor(Object key) {
    int h = key.hashCode();
    h ^= h >>> 16;
    h *= 0x45d9f3b;
    h ^= h >>> 16;
    return locks[h & (STRIPES - 1)];
  }
}
