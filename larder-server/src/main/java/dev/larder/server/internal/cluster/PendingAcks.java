package dev.larder.server.internal.cluster;

import io.netty.util.concurrent.FastThreadLocal;
import java.util.concurrent.CompletableFuture;

/**
 * The acknowledgements a command's puts left pending on a clustered server: the request path arms
 * collection on its thread before it runs a command, the keyspace's puts ({@link
 * ServerCluster#putDeferred}) add what they did not wait for, and the request path takes the result
 * after the command and holds its reply until it completes. A put on a thread that did not arm
 * collection (a transaction's queued commands, memcached, the HTTP mount) waits as before.
 *
 * <p>Implementation notes. One instance per thread ({@link FastThreadLocal}: an indexed slot on
 * Netty's event-loop threads), so a command's puts reach it without a parameter through every
 * command. Several pending puts of one command combine into one future that completes when all of
 * them have, exceptionally if any did.
 *
 * <p>Not thread-safe: each instance is used by its own thread only.
 */
public final class PendingAcks {
  private static final FastThreadLocal<PendingAcks> CURRENT =
      new FastThreadLocal<>() {
        @Override
        protected PendingAcks initialValue() {
          return new PendingAcks();
        }
      };

  private boolean armed;
  private CompletableFuture<Void> pending;

  private PendingAcks() {}

  /** Starts collecting on this thread, forgetting anything collected before. */
  public static void arm() {
    PendingAcks p = CURRENT.get();
    p.armed = true;
    p.pending = null;
  }

  /**
   * Stops collecting on this thread.
   *
   * @return what the puts since {@link #arm} left pending (one future for all), or null if nothing
   */
  public static CompletableFuture<Void> disarm() {
    PendingAcks p = CURRENT.get();
    p.armed = false;
    CompletableFuture<Void> out = p.pending;
    p.pending = null;
    return out;
  }

  /** Returns whether this thread collects. */
  static boolean armed() {
    return CURRENT.get().armed;
  }

  /**
   * Adds an acknowledgement this thread's command must wait for before it is answered.
   *
   * @param acks completes once the owners acknowledged the write
   */
  static void add(CompletableFuture<Void> acks) {
    PendingAcks p = CURRENT.get();
    p.pending = p.pending == null ? acks : CompletableFuture.allOf(p.pending, acks);
  }
}
