package dev.larder.server.internal.keyspace;

import java.util.Objects;

/**
 * A decoded value of the keyspace: its type, its version, its absolute expiry and its payload.
 *
 * @param type what the payload holds
 * @param version a number unique to this write of this key (memcached's CAS unique, WATCH's
 *     witness); positive once stored, 0 on a value not yet stored
 * @param expiresAtMillis Unix time in milliseconds after which the key is gone; 0 for never
 * @param clientFlags memcached's opaque 32-bit client flags (0 for Redis writes)
 * @param payload the string's bytes, or a {@link HashPayload} encoding; never null, not copied
 * @param itemState memcached's per-item state (stale, recache token sent, fetched, last access),
 *     opaque to the keyspace and interpreted by the memcached front end; 0 for none (every Redis
 *     write and every memcached item that never used it), non-negative
 */
@SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
public record StoredValue(
    ValueType type,
    long version,
    long expiresAtMillis,
    int clientFlags,
    byte[] payload,
    long itemState) {

  /** Checks the components. */
  public StoredValue {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(payload, "payload");
    if (version < 0 || expiresAtMillis < 0 || itemState < 0) {
      throw new IllegalArgumentException("negative version, expiry or item state");
    }
  }

  /**
   * A value without memcached item state.
   *
   * @param type what the payload holds
   * @param version the version, 0 when not yet stored
   * @param expiresAtMillis the absolute expiry, 0 for never
   * @param clientFlags memcached's client flags
   * @param payload the payload, not copied
   */
  public StoredValue(
      ValueType type, long version, long expiresAtMillis, int clientFlags, byte[] payload) {
    this(type, version, expiresAtMillis, clientFlags, payload, 0);
  }

  /**
   * Returns a string value with no expiry and no flags, not yet versioned.
   *
   * @param payload the bytes
   */
  public static StoredValue string(byte[] payload) {
    return new StoredValue(ValueType.STRING, 0, 0, 0, payload);
  }

  /** Returns whether this value has an expiry time. */
  public boolean volatileKey() {
    return expiresAtMillis != 0;
  }

  /**
   * Returns whether the value has expired at that time.
   *
   * @param nowMillis the current Unix time in milliseconds
   */
  public boolean expiredAt(long nowMillis) {
    return expiresAtMillis != 0 && expiresAtMillis <= nowMillis;
  }

  /**
   * Returns this value with another payload, keeping type, expiry and flags.
   *
   * @param newPayload the payload
   */
  public StoredValue withPayload(byte[] newPayload) {
    return new StoredValue(type, version, expiresAtMillis, clientFlags, newPayload, itemState);
  }

  /**
   * Returns this value with another expiry.
   *
   * @param when the new absolute expiry, 0 for none
   */
  public StoredValue withExpiry(long when) {
    return new StoredValue(type, version, when, clientFlags, payload, itemState);
  }

  /**
   * Returns this value with another memcached item state, keeping everything else.
   *
   * @param state the state, 0 for none
   */
  public StoredValue withItemState(long state) {
    return new StoredValue(type, version, expiresAtMillis, clientFlags, payload, state);
  }

  /**
   * Returns this value with another version.
   *
   * @param newVersion the version
   */
  StoredValue withVersion(long newVersion) {
    return new StoredValue(type, newVersion, expiresAtMillis, clientFlags, payload, itemState);
  }
}
