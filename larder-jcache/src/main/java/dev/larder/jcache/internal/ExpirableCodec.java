package dev.larder.jcache.internal;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;

/**
 * Wraps a value codec to store each entry's JCache expiry time in front of its value bytes. JCache
 * expiry is per entry (an {@code ExpiryPolicy} may give each write its own duration), so it lives
 * in the value rather than in the store's cache-wide expiry settings.
 *
 * <pre>
 * wire form, version 1 (docs/spec/jcache-entry-value.md):
 * +-------------------------------+------------------------------+
 * | expiry: varint (LEB128)       | value: the value codec's     |
 * | 0 = never, else expireAt + 1  | bytes (encodeLast form)      |
 * +-------------------------------+------------------------------+
 * </pre>
 *
 * <p>expireAt counts milliseconds of the cache's {@link ExpiryClock}, so it is small (a varint of
 * 1-5 bytes for the first 397 days of a cache) and an eternal entry pays a single byte.
 *
 * @param <V> value type
 */
final class ExpirableCodec<V> implements Codec<Expirable<V>> {

  private final Codec<V> valueCodec;

  ExpirableCodec(Codec<V> valueCodec) {
    this.valueCodec = valueCodec;
  }

  @Override
  public void encode(Expirable<V> entry, ByteSink out) {
    writeExpiry(entry, out);
    valueCodec.encode(entry.value(), out);
  }

  @Override
  public void encodeLast(Expirable<V> entry, ByteSink out) {
    writeExpiry(entry, out);
    valueCodec.encodeLast(entry.value(), out);
  }

  @Override
  public Expirable<V> decode(ByteSource in) {
    long expireAt = readExpiry(in);
    return new Expirable<>(valueCodec.decode(in), expireAt);
  }

  @Override
  public Expirable<V> decodeLast(ByteSource in) {
    long expireAt = readExpiry(in);
    return new Expirable<>(valueCodec.decodeLast(in), expireAt);
  }

  @Override
  public Class<?> type() {
    return Expirable.class;
  }

  /**
   * An {@link Expirable} is a record of the value and a long, so it is as immutable as the value: a
   * bounded store of immutable values (strings, numbers, records of them) then keeps its most read
   * entries decoded in the cache's hot tier, and a JCache read of one decodes nothing.
   */
  @Override
  public boolean immutable() {
    return valueCodec.immutable();
  }

  private static void writeExpiry(Expirable<?> entry, ByteSink out) {
    long expireAt = entry.expireAt();
    out.writeVarLong(expireAt == Expirable.NEVER ? 0 : expireAt + 1);
  }

  private static long readExpiry(ByteSource in) {
    long stored = in.readVarLong();
    return stored == 0 ? Expirable.NEVER : stored - 1;
  }
}
