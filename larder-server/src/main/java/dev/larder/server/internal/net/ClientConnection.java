package dev.larder.server.internal.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One client connection as its decoder, its {@link RequestPipeline} and the server's {@link
 * ClientMemory} see it: whether the decoder may hand on another request (not while the connection's
 * unsent replies are over the high-water mark, nor once it is closing), whether it has
 * authenticated (asked of its {@link ProtocolSession}), and the bytes it holds.
 *
 * <p>Threads: everything but {@link #disconnect}, {@link #push} and the held-bytes count is used on
 * the connection's event loop only; {@link ClientMemory} may disconnect it from another
 * connection's loop (the channel's close is thread-safe in Netty), so that flag is volatile and the
 * count atomic.
 *
 * <p><b>Pushes</b> (pub/sub messages, invalidations) come from other connections' threads: {@link
 * #push} queues them (a lock-free FIFO, so the order of calls is the order of delivery) and
 * schedules one drain on the connection's event loop, where {@link RequestPipeline} writes every
 * queued push behind the replies already sent. Queued bytes count as unsent output: a push that
 * would take the connection past {@code client-output-buffer-limit} disconnects it instead (Redis's
 * {@code client-output-buffer-limit pubsub} hard limit), so a subscriber that does not read cannot
 * grow the server's memory beyond its limit.
 */
public final class ClientConnection {
  /** The held-bytes count of a connection whose bytes were already given back. */
  static final long RELEASED = -1;

  private final ProtocolSession session;
  private final ClientMemory memory;

  /** Bytes counted in the server's total for this connection, or RELEASED. */
  final AtomicLong held = new AtomicLong();

  private RequestDecoder decoder;
  private RequestPipeline pipeline;
  private Channel channel;
  private boolean paused;
  private boolean blocked;
  private boolean stopped;

  /** True until the pipeline opens the connection (a refused one never is), and once closed. */
  private volatile boolean disconnected = true;

  private long lastOutput;

  /** Reply bytes handed to {@link DurableReplies} and not yet written to the channel. */
  private long awaitingLog;

  private ChannelHandlerContext context;
  private final ConcurrentLinkedQueue<Push> pushes = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();

  /** Estimated bytes of pushes queued and not yet written. */
  private final AtomicLong pushBytes = new AtomicLong();

  /** Unsent output as last counted on the loop, for the limit check of pushes from elsewhere. */
  private volatile long outputSnapshot;

  /**
   * @param session the connection's protocol
   * @param memory the server's client-memory budget and limits
   */
  public ClientConnection(ProtocolSession session, ClientMemory memory) {
    this.session = session;
    this.memory = memory;
  }

  void attach(RequestDecoder decoder) {
    this.decoder = decoder;
  }

  void attach(RequestPipeline requestPipeline) {
    this.pipeline = requestPipeline;
  }

  /**
   * Queues a message for the client, written after the replies already sent: the session's {@link
   * ProtocolSession#push} writes it, on the connection's event loop. Calls from one thread are
   * delivered in their order; the caller orders calls from several threads (a lock held across
   * them). Safe from any thread.
   *
   * @param message what the session will write
   * @param bytes an estimate of its encoded size, counted as unsent output until written
   * @return false if the connection is closed, or was just closed because the message would take it
   *     past its output limit
   */
  public boolean push(Object message, long bytes) {
    if (disconnected) {
      return false;
    }
    long queued = pushBytes.addAndGet(bytes);
    if (queued + outputSnapshot > memory.outputLimit()) {
      disconnect(
          ClientMemory.Reason.OUTPUT_LIMIT,
          (queued + outputSnapshot)
              + " bytes of messages and replies unsent, limit "
              + memory.outputLimit());
      return false;
    }
    pushes.add(new Push(message, bytes));
    if (drainScheduled.compareAndSet(false, true)) {
      channel.eventLoop().execute(pipeline::drainPushes);
    }
    return true;
  }

  /** Returns the pipeline's context, null before the connection opens. */
  ChannelHandlerContext context() {
    return context;
  }

  /** Returns whether pushes are queued (event loop only; a hint). */
  boolean hasPushes() {
    return !pushes.isEmpty();
  }

  /** Takes the next queued push, or null (event loop only). */
  Push nextPush() {
    return pushes.poll();
  }

  /** Called by the drain first, so that a push queued during it schedules another. */
  void drainStarted() {
    drainScheduled.set(false);
  }

  /**
   * @param bytes estimated bytes of pushes just written (or dropped)
   */
  void pushesTaken(long bytes) {
    pushBytes.addAndGet(-bytes);
  }

  /**
   * A queued push.
   *
   * @param message what the session writes
   * @param bytes its estimated size
   */
  record Push(Object message, long bytes) {}

  RequestDecoder decoder() {
    return decoder;
  }

  ProtocolSession session() {
    return session;
  }

  ClientMemory memory() {
    return memory;
  }

  void open(ChannelHandlerContext ctx) {
    this.channel = ctx.channel();
    this.context = ctx;
    memory.register(this);
    disconnected = false;
  }

  /** Returns the peer's address, for logs. */
  public String address() {
    return channel == null ? "?" : String.valueOf(channel.remoteAddress()).replace("/", "");
  }

  /** Returns the address the peer connected to (this server's side), for CLIENT LIST and KILL. */
  public String localAddress() {
    return channel == null ? "?" : String.valueOf(channel.localAddress()).replace("/", "");
  }

  /**
   * Returns whether the decoder may hand on another request: not while replies wait for the client
   * to read them, nor once the connection is closing.
   */
  public boolean accepting() {
    return !paused && !blocked && !stopped && !disconnected;
  }

  /**
   * The request just run blocks (BLPOP on empty lists): no further request of this connection runs
   * until {@link #unblock} hands in its reply. Its input is still read and counted against the
   * limits meanwhile. Event loop only.
   */
  public void block() {
    blocked = true;
  }

  /** Returns whether a blocked request waits for its reply (event loop only). */
  public boolean blocked() {
    return blocked;
  }

  /**
   * Ends the block: writes the blocked request's reply, sends it as a batch of its own, then runs
   * the requests that arrived meanwhile. From any thread: the work runs on the connection's event
   * loop; nothing happens if the connection has closed.
   *
   * @param reply writes the reply into the buffer it is given
   */
  public void unblock(Consumer<ByteBuf> reply) {
    if (channel == null) {
      return;
    }
    channel
        .eventLoop()
        .execute(
            () -> {
              if (blocked && !disconnected) {
                blocked = false;
                pipeline.completeBlocked(reply);
              }
            });
  }

  /**
   * Runs a task on the connection's event loop after a delay (a blocked request's timeout).
   *
   * @param task the task
   * @param nanos the delay
   * @return a handle that cancels it
   */
  public Future<?> schedule(Runnable task, long nanos) {
    return channel.eventLoop().schedule(task, nanos, TimeUnit.NANOSECONDS);
  }

  /** Returns whether the connection has authenticated, or needs not. */
  public boolean authenticated() {
    return session.authenticated();
  }

  /** Returns whether the connection is not open for requests: not yet admitted, or closed. */
  public boolean disconnected() {
    return disconnected;
  }

  boolean paused() {
    return paused;
  }

  void paused(boolean value) {
    paused = value;
  }

  /** The protocol will close the connection: decode nothing more. */
  void stop() {
    stopped = true;
  }

  /**
   * Returns reply bytes not yet taken by the socket: written to the channel, or waiting for the
   * server's log before they may be.
   */
  long outboundBytes() {
    if (channel == null) {
      return awaitingLog;
    }
    ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
    return awaitingLog + (buffer == null ? 0 : buffer.totalPendingWriteBytes());
  }

  /** Returns reply bytes waiting for the server's log (event loop only). */
  long awaitingLog() {
    return awaitingLog;
  }

  /**
   * @param delta bytes handed to, or (negative) released by, {@link DurableReplies}
   */
  void awaitingLog(long delta) {
    awaitingLog += delta;
  }

  /**
   * Counts the request bytes the decoder is about to take (a large argument it allocates whole)
   * before it takes them, so that limits apply before the memory is used.
   *
   * @param bytes the bytes about to be held, beyond what the decoder holds now
   * @return whether the connection may go on; false if a limit closed it
   */
  public boolean reserveInput(long bytes) {
    return memory.update(
        this, decoder.heldBytes() + session.heldRequestBytes() + bytes, lastOutput);
  }

  /**
   * Recounts what the connection holds now.
   *
   * @param pendingReplies reply bytes built and not yet written to the channel
   * @return whether the connection may go on
   */
  boolean recount(long pendingReplies) {
    lastOutput = outboundBytes() + pendingReplies;
    outputSnapshot = lastOutput;
    lastOutput += pushBytes.get();
    return memory.update(this, decoder.heldBytes() + session.heldRequestBytes(), lastOutput);
  }

  /**
   * Closes the connection at once, dropping replies not yet written, and stops its decoding. Safe
   * from any thread.
   *
   * @param reason why, for the log and the counters, or null for a close the caller logs itself
   * @param detail what was seen, for the log
   */
  // A close that fails has nothing left to undo: the channel is closed either way.
  @SuppressWarnings("FutureReturnValueIgnored")
  public void disconnect(ClientMemory.Reason reason, String detail) {
    if (disconnected) {
      return;
    }
    disconnected = true;
    if (reason != null) {
      memory.disconnected(this, reason, detail);
    }
    if (channel != null) {
      channel.close();
    }
  }
}
