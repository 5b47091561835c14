package dev.larder.server.internal;

import dev.larder.internal.bulk.EncodedEntries;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ValueLayout;
import dev.larder.server.internal.net.Transport;
import dev.larder.server.internal.resp.RespCommandTable;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * Runs, on a daemon thread of its own, the first use of what a server's start uses after its
 * options are parsed: the store (its off-heap pages' native calls are linked at first use), the
 * command table (every command's registration), Netty's transport (epoll's native library) and its
 * default allocator. The serve command starts it before its options are parsed, so that this work
 * runs on another core while the parsing (picocli's reflection over its annotations, a few hundred
 * milliseconds of one core) runs, instead of after it on the start's critical path.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Nothing here has an effect a server could see: a keyspace of its own (16 MiB bound) is built,
 * written once, filled with 40,000 keys through the store's bulk restore and closed; a command
 * table is built and dropped; no file, port or thread pool is opened. The classes stay initialized
 * and their call sites linked; later uses find them so. A failure only leaves that work to the
 * start itself: it is reported on standard error, once, and never stops the start.
 *
 * <p>Thread-safe: {@link #begin} may be called any number of times; each call starts one thread.
 */
public final class StartUpWarmUp {
  /** The warm-up keyspace's bound: room for every entry {@link #restoreBatches} stores. */
  private static final long KEYSPACE_BYTES = 16L << 20;

  /** Batches, and entries a batch, that {@link #restoreBatches} stores. */
  static final int BATCHES = 100;

  static final int BATCH_ENTRIES = 400;

  private StartUpWarmUp() {}

  /**
   * Stores batches of new keys through the store's bulk restore, as a checkpoint's load does: a
   * restart's load is the first run of that path, and the JIT compiles it on the cores that load.
   * Run here, beside the option parsing, those compilations start before the load does. Every key
   * is new and fits the keyspace's bound, so each goes the bulk path's way, not a put's.
   */
  static void restoreBatches(Keyspace keyspace) {
    byte[] value = ValueLayout.encodeString(1, new byte[32]);
    EncodedEntries batch = new EncodedEntries(BATCH_ENTRIES, BATCH_ENTRIES * 64);
    for (int b = 0; b < BATCHES; b++) {
      batch.clear();
      for (int i = 0; i < BATCH_ENTRIES; i++) {
        byte[] key = ("warm-up:" + (b * BATCH_ENTRIES + i)).getBytes(StandardCharsets.US_ASCII);
        batch.add(Keyspace.storedKey(0, key), value);
      }
      keyspace.restoreAll(batch, 0);
    }
  }

  /** Starts the warm-up on a daemon thread and returns at once. */
  public static void begin() {
    Thread t = new Thread(StartUpWarmUp::run, "larder-serve-warm-up");
    t.setDaemon(true);
    t.start();
  }

  private static void run() {
    try {
      try (Keyspace keyspace = new Keyspace(KEYSPACE_BYTES, System::currentTimeMillis)) {
        byte[] key = "warm-up".getBytes(StandardCharsets.US_ASCII);
        keyspace.putString(0, key, key);
        keyspace.getStored(0, key);
        restoreBatches(keyspace);
      }
      RespCommandTable.standard();
      Transport.of("auto");
      ByteBufAllocator.DEFAULT.directBuffer(64).release();
    } catch (RuntimeException | LinkageError e) {
      System.err.println("larder: start-up warm-up skipped: " + e);
    }
  }
}
