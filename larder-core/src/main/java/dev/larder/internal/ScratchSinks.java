package dev.larder.internal;

import dev.larder.codec.ByteSink;

/**
 * A thread's reusable buffers for encoding a key and a value, lent for the length of one cache
 * operation. An operation can run user code while its bytes are still in a buffer: a codec, a
 * dictionary's addition listener, a removal listener on a synchronous executor. If that code calls
 * a cache (this one or another) on the same thread, the nested operation must not write over the
 * outer one's bytes, so buffers already lent out are not lent again: the nested call gets fresh
 * ones instead.
 *
 * <p>Each {@link #borrow} must be paired with {@link #giveBack} on the same thread once the bytes
 * are no longer read (in a {@code finally}). Confined to its thread; no synchronization.
 */
final class ScratchSinks {

  private static final ThreadLocal<ScratchSinks> THREADS =
      ThreadLocal.withInitial(ScratchSinks::new);

  private final ByteSink key = new ByteSink();
  private final ByteSink value = new ByteSink(256);
  private boolean lent;

  private ScratchSinks() {}

  /** Returns this thread's buffers, emptied, if they are not lent out; else fresh ones. */
  static ScratchSinks borrow() {
    ScratchSinks mine = THREADS.get();
    if (mine.lent) {
      return new ScratchSinks();
    }
    mine.lent = true;
    mine.key.reset();
    mine.value.reset();
    return mine;
  }

  /** Ends the loan; the bytes must no longer be read. */
  void giveBack() {
    lent = false;
  }

  /** Returns the buffer for the key. */
  ByteSink key() {
    return key;
  }

  /** Returns the buffer for the value. */
  ByteSink value() {
    return value;
  }
}
