package dev.larder.server.internal;

import dev.larder.server.internal.keyspace.Keyspace;
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
 * <p>Nothing here has an effect a server could see: a keyspace of its own (64 KiB bound) is built,
 * written once and closed; a command table is built and dropped; no file, port or thread pool is
 * opened. The classes stay initialized and their call sites linked; later uses find them so. A
 * failure only leaves that work to the start itself: it is reported on standard error, once, and
 * never stops the start.
 *
 * <p>Thread-safe: {@link #begin} may be called any number of times; each call starts one thread.
 */
public final class StartUpWarmUp {
  private StartUpWarmUp() {}

  /** Starts the warm-up on a daemon thread and returns at once. */
  public static void begin() {
    Thread t = new Thread(StartUpWarmUp::run, "larder-serve-warm-up");
    t.setDaemon(true);
    t.start();
  }

  private static void run() {
    try {
      try (Keyspace keyspace = new Keyspace(64 << 10, System::currentTimeMillis)) {
        byte[] key = "warm-up".getBytes(StandardCharsets.US_ASCII);
        keyspace.putString(0, key, key);
        keyspace.getStored(0, key);
      }
      RespCommandTable.standard();
      Transport.of("auto");
      ByteBufAllocator.DEFAULT.directBuffer(64).release();
    } catch (RuntimeException | LinkageError e) {
      System.err.println("larder: start-up warm-up skipped: " + e);
    }
  }
}
