package dev.larder.server.internal.keyspace;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Test support: a key's stored bytes read under the key's stripe, so that whatever held the stripe
 * when the read began has finished. The open-collection tier's closing task leaves the tier before
 * it writes a collection back under its stripe: a test that saw the tier empty reads the store so.
 */
final class StoredUnderStripe {
  private StoredUnderStripe() {}

  /**
   * Returns the stored bytes of a key, or null if absent.
   *
   * @param ks the keyspace
   * @param stored the key as the store holds it ({@link Keyspace#storedKey})
   */
  static byte[] read(Keyspace ks, byte[] stored) {
    ReentrantLock stripe = ks.stripe(stored);
    stripe.lock();
    try {
      return ks.store().getIfPresent(stored);
    } finally {
      stripe.unlock();
    }
  }
}
