package dev.larder.tx;

import dev.larder.codec.ByteSink;
import dev.larder.codec.Codec;
import java.util.List;

/**
 * Runs the caches' codecs for a store, into a per-thread scratch sink (codecs do not call back into
 * the store). Thread-safe.
 */
final class Encoding {

  private static final ThreadLocal<ByteSink> SCRATCH = ThreadLocal.withInitial(ByteSink::new);
  private static final int SCRATCH_KEPT_BYTES = 128 * 1024;

  private final List<TxCacheSpec<?, ?>> specs;

  Encoding(List<TxCacheSpec<?, ?>> specs) {
    this.specs = List.copyOf(specs);
  }

  byte[] key(int cache, Object key) {
    return encode(specs.get(cache).keyCodec(), key).toByteArray();
  }

  byte[] value(int cache, Object value) {
    return encode(specs.get(cache).valueCodec(), value).toByteArray();
  }

  /**
   * Returns the value's bytes in this thread's scratch sink, valid until the thread's next encoding
   * (the blind-write path copies them once, into the stored bytes).
   */
  ByteSink valueToScratch(int cache, Object value) {
    return encode(specs.get(cache).valueCodec(), value);
  }

  @SuppressWarnings("unchecked")
  private static <T> ByteSink encode(Codec<T> codec, Object value) {
    ByteSink sink = SCRATCH.get();
    if (sink.array().length > SCRATCH_KEPT_BYTES) {
      sink = new ByteSink(); // do not keep a huge value's buffer for the thread's lifetime
      SCRATCH.set(sink);
    }
    sink.reset();
    codec.encode((T) value, sink);
    return sink;
  }
}
