package dev.larder.internal;

import dev.larder.codec.ByteSink;

/**
 * A thread's reusable buffers for encoding keys and values, lent for the length of one cache
 * operation. An operation can run user code while its bytes are still in a buffer: a codec, a
 * dictionary's addition listener, a removal listener on a synchronous executor. If that code
 * calls a cache (this one or another) on the same thread, the nested operation must not write
 * over the outer one's bytes, so a buffer already lent out is not lent again: the nested call
 * gets a fresh buffer instead.
 *
 * <p>Each {@link #borrowKeySink}/{@link #borrowValueSink} must be paired with
 * {@link #giveBack} on the same instance, on its thread, once the bytes are no longer read (in
 * a {@code finally}). Confined to its thread ({@link #current}); no synchronization needed.
 */
final class ScratchSinks {

  private static final ThreadLocal<ScratchSinks> THREADS =
      ThreadLocal.withInitial(ScratchSinks::new);

  private final ByteSink key = new ByteSink();
  private final ByteSink value = new ByteSink(256);
  private boolean keyLent;
  private boolean valueLent;

  private ScratchSinks() {}

  /** @return this thread's buffers */
  static ScratchSinks current() {
    return THREADS.get();
  }

  /** @return an empty sink for a key: this thread's own if free, else a new one */
  ByteSink borrowKeySink() {
    if (keyLent) {
      return new ByteSink();
    }
    keyLent = true;
    key.reset();
    return key;
  }

  /** @return an empty sink for a value: this thread's own if free, else a new one */
  ByteSink borrowValueSink() {
    if (valueLent) {
      return new ByteSink(256);
    }
    valueLent = true;
    value.reset();
    return value;
  }

  /** @param sink a sink borrowed from these buffers; its bytes must no longer be read */
  void giveBack(ByteSink sink) {
    if (sink == key) {
      keyLent = false;
    } else if (sink == value) {
      valueLent = false;
    }
  }
}
