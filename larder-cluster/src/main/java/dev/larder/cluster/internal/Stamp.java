package dev.larder.cluster.internal;

import java.util.Arrays;

/**
 * The stored form of a value in a cache with expire-after-write: the expiry deadline (epoch
 * milliseconds, little-endian i64, stamped once by the key's primary) followed by the value's
 * encoded bytes. Every owner, and state transfer, keeps the same stamp, so an entry expires at the
 * same instant on every owner. Without expiry, stored values are the encoded bytes alone.
 */
final class Stamp {

  static final int HEADER = 8;

  private Stamp() {}

  static byte[] wrap(long deadlineMillis, byte[] payload) {
    byte[] out = new byte[HEADER + payload.length];
    for (int i = 0; i < HEADER; i++) {
      out[i] = (byte) (deadlineMillis >>> (8 * i));
    }
    System.arraycopy(payload, 0, out, HEADER, payload.length);
    return out;
  }

  static long deadline(byte[] stored) {
    long d = 0;
    for (int i = HEADER - 1; i >= 0; i--) {
      d = (d << 8) | (stored[i] & 0xFF);
    }
    return d;
  }

  static byte[] payload(byte[] stored) {
    return Arrays.copyOfRange(stored, HEADER, stored.length);
  }
}
