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
 * {@link #giveBack} on the same thread once the bytes are no longer read (in a
 * {@code finally}). Confined to its thread; no synchronization needed.
 */
final class ScratchSinks {

  private static final ThreadLocal<ScratchSinks> THREADS =
      ThreadLocal.withInitial(ScratchSinks::new);

  private final ByteSink key = new ByteSink();
  private final ByteSink value = new ByteSink(256);
  private boolean keyLent;
  private boolean valueLent;

  private ScratchSinks() {}

  /** @return an empty sink for a key: the thread's own if free, else a new one */
  static ByteSink borrowKeySink() {
    ScratchSinks mine = THREADS.get();
    if (mine.keyLent) {
      return new ByteSink();
    }
    mine.keyLent = true;
    mine.key.reset();
    return mine.key;
  }

  /** @return an empty sink for a value: the thread's own if free, else a new one */
  static ByteSink borrowValueSink() {
    ScratchSinks mine = THREADS.get();
    if (mine.valueLent) {
      return new ByteSink(256);
    }
    mine.valueLent = true;
    mine.value.reset();
    return mine.value;
  }

  /** @param sink a sink borrowed on this thread; its bytes must no longer be read */
  static void giveBack(ByteSink sink) {
    ScratchSinks mine = THREADS.get();
    if (sink == mine.key) {
      mine.keyLent = false;
    } else if (sink == mine.value) {
      mine.valueLent = false;
    }
  }
}
