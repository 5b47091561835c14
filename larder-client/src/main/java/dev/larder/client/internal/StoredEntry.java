package dev.larder.client.internal;

import java.nio.ByteBuffer;
import redis.clients.jedis.csc.CacheConnection;
import redis.clients.jedis.csc.CacheEntry;
import redis.clients.jedis.csc.CacheKey;

/**
 * A near-cache hit as Jedis sees it: a {@link CacheEntry} whose value is decoded from the stored
 * reply bytes each time it is asked for, so every caller gets its own copy (as with Jedis's own
 * entries, which deserialize on every read).
 *
 * <p>Jedis's {@code CacheEntry} constructor serializes the value it is given; this passes null, so
 * that costs one small serialization of null, not of the reply. Immutable; thread-safe.
 *
 * @param <T> the reply type
 */
public final class StoredEntry<T> extends CacheEntry<T> {
  private final byte[] value;
  private final int replyOffset;

  /**
   * @param key the entry's key
   * @param owner the connection that read the reply (held weakly, as Jedis does)
   * @param value the stored value bytes
   * @param replyOffset where the reply starts in {@code value}
   */
  public StoredEntry(CacheKey<T> key, CacheConnection owner, byte[] value, int replyOffset) {
    super(key, null, owner);
    this.value = value;
    this.replyOffset = replyOffset;
  }

  @Override
  @SuppressWarnings(
      "unchecked") // the reply was stored under the same key, so built by the same builder
  public T getValue() {
    ByteBuffer in = ByteBuffer.wrap(value);
    in.position(replyOffset);
    return (T) ReplyCodec.read(in);
  }
}
