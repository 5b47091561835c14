package dev.larder.server.internal.net;

import dev.larder.server.internal.persist.ServerLog;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Sends the connections' replies once the log allows: a reply leaves only after every record
 * appended before it was produced is forced ({@code appendfsync always}) or written to the
 * operating system ({@code everysec}, {@code no}). Without a log, a reply is written at once.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Per event loop, per round.</b> A handler hands each buffer of replies to {@link #send} on
 * its event loop. The first buffer of a round queues a drain task on that loop, which runs after
 * the loop has read and run every ready connection (Netty runs its tasks after its I/O): Redis's
 * {@code beforeSleep}. The drain reads the log's appended ticket once for the whole round.
 *
 * <p><b>{@code everysec} and {@code no}</b>: the drain syncs the log up to the ticket on the loop
 * (one {@code write} for the round, shared with any other loop writing at the same moment), then
 * writes the round's replies.
 *
 * <p><b>{@code always}</b>: forcing on the loop would stop every connection of the loop for the
 * length of a force. The drain instead hands the round to the one syncer thread and goes on; the
 * syncer takes every round waiting (from every loop), forces the log once up to the highest ticket,
 * and posts each loop its rounds as one task, which writes them: group commit across connections
 * and loops, with no loop ever waiting. The next force starts once one ends, with every round
 * handed over meanwhile, after at most a short wait for the writers the ended force answered to
 * append their next writes ({@link ForceGathering}: without it, clients with one write in flight
 * split into two groups that take turns, and each force carries half of them). A force writes every
 * record appended before it began, including those of rounds not yet handed over (a loop appends
 * while it runs its connections and hands its round over at the end): rounds handed over during the
 * force whose records it covered are posted with it, rather than wait for the next force (under
 * load, a second force's length). A round whose ticket is already forced, on a loop with no round
 * at the syncer, is written at once. A loop with a round at the syncer sends its later rounds there
 * too, in order: the syncer posts each loop's rounds in the order they came (a loop's later round
 * is never covered before its earlier one, since tickets grow) and the loop runs its posted tasks
 * in order, so a connection's replies never overtake each other. {@link #info()} tells where the
 * rounds' time went ({@link ReplyWaits}).
 *
 * <p>Redis under {@code appendfsync always} writes and forces its file in the event loop itself,
 * before it writes the iteration's replies: a force holds every connection, and the next requests
 * are read only after it. Here the loops read and run the next requests while a force runs.
 *
 * <p><b>Memory.</b> Bytes held here count as their connection's unsent output ({@link
 * ClientConnection#awaitingLog()}); once they are written, a connection its {@link RequestPipeline}
 * paused for them is sent a writability change, which resumes it.
 *
 * <p><b>Failure.</b> If the log fails, nothing more is acknowledged: the connections whose replies
 * were waiting are closed without them.
 *
 * <p>Thread-safe; {@link #send} is called on the connection's event loop.
 */
public final class DurableReplies implements AutoCloseable {
  private final ServerLog log;
  private final Map<EventLoop, Round> rounds = new ConcurrentHashMap<>();
  private final LinkedBlockingQueue<Waiting> toForce = new LinkedBlockingQueue<>();
  private final Thread syncer;
  private final ReplyWaits waits = new ReplyWaits();

  /** When the syncer starts its next force; the syncer's alone. */
  private final ForceGathering gathering = new ForceGathering();

  private volatile boolean closed;

  /**
   * @param log the server's log, or null for a server without one
   */
  public DurableReplies(ServerLog log) {
    this.log = log;
    if (log != null && log.forcesBeforeReplies()) {
      syncer = new Thread(this::syncLoop, "larder-server-fsync");
      syncer.setDaemon(true);
      syncer.start();
    } else {
      syncer = null;
    }
  }

  /**
   * Sends {@code replies} on {@code ctx}'s channel once the log allows, then closes the channel if
   * {@code close}.
   *
   * @param connection the connection the replies are for
   * @param ctx the handler's context, on its event loop
   * @param replies the replies (this takes ownership; may be empty, to close after the others)
   * @param close whether to close the connection after them
   */
  public void send(
      ClientConnection connection, ChannelHandlerContext ctx, ByteBuf replies, boolean close) {
    if (log == null) {
      write(ctx, replies, close);
      return;
    }
    connection.awaitingLog(replies.readableBytes());
    rounds
        .computeIfAbsent(ctx.channel().eventLoop(), Round::new)
        .add(new Reply(connection, ctx, replies, close));
  }

  // A write that fails closes the channel (Netty closes on an I/O error), which ends the client.
  @SuppressWarnings("FutureReturnValueIgnored")
  private static void write(ChannelHandlerContext ctx, ByteBuf replies, boolean close) {
    if (close) {
      ctx.writeAndFlush(replies).addListener(ChannelFutureListener.CLOSE);
    } else {
      ctx.writeAndFlush(replies);
    }
  }

  private void syncLoop() {
    List<Waiting> batch = new ArrayList<>();
    List<Waiting> covered = new ArrayList<>();
    while (!closed) {
      if (batch.isEmpty()) {
        try {
          batch.add(toForce.take());
        } catch (InterruptedException e) {
          return;
        }
      }
      toForce.drainTo(batch);
      // Rounds whose records an earlier force already covered (appended before its write, handed
      // over after the syncer took its batch) are written now, not after this force.
      long started = System.nanoTime();
      takeCovered(batch, covered);
      post(covered, true, started, started);
      if (batch.isEmpty()) {
        continue;
      }
      if (!gather(batch, covered)) {
        return;
      }
      if (batch.isEmpty()) {
        continue;
      }
      long ticket = 0;
      for (Waiting w : batch) {
        ticket = Math.max(ticket, w.ticket());
      }
      boolean ok = true;
      gathering.forceStarting(log.appendedSequence());
      started = System.nanoTime();
      try {
        log.sync(ticket);
      } catch (RuntimeException e) {
        ok = false;
      }
      long ended = System.nanoTime();
      gathering.forceEnded(log.appendedSequence(), ended, ended - started);
      waits.forced(ended - started);
      // The force wrote every record appended before it began, whether or not its round had
      // reached the queue yet: the rounds handed over meanwhile that it covered go with it, the
      // others start the next force at once.
      int taken = batch.size();
      toForce.drainTo(batch);
      List<Waiting> later = new ArrayList<>(batch.subList(taken, batch.size()));
      batch.subList(taken, batch.size()).clear();
      if (ok) {
        takeCovered(later, batch);
      }
      post(batch, ok, started, ended);
      batch.clear();
      batch.addAll(later);
    }
  }

  /**
   * Lets the next force gather the writes of the clients the last one answered, as {@link
   * ForceGathering} decides (at most half the last force's length), taking the rounds handed over
   * meanwhile into {@code batch}; then writes the rounds already covered, as at the top of the
   * loop.
   *
   * @return false if interrupted (the server closes)
   */
  private boolean gather(List<Waiting> batch, List<Waiting> covered) {
    long began = System.nanoTime();
    long now = began;
    boolean waited = false;
    long wait;
    while ((wait = gathering.waitNanos(log.appendedSequence(), now)) > 0) {
      waited = true;
      Waiting w;
      try {
        w = toForce.poll(wait, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        return false;
      }
      if (w != null) {
        batch.add(w);
        toForce.drainTo(batch);
      }
      now = System.nanoTime();
    }
    if (waited) {
      waits.gathered(now - began);
      takeCovered(batch, covered);
      post(covered, true, now, now);
    }
    return true;
  }

  /**
   * Moves from {@code from} to {@code into} the rounds whose records are already forced, keeping
   * each loop's rounds in order: once one of a loop's rounds must wait, its later ones wait too.
   */
  private void takeCovered(List<Waiting> from, List<Waiting> into) {
    List<Round> held = new ArrayList<>(2);
    for (var it = from.iterator(); it.hasNext(); ) {
      Waiting w = it.next();
      if (!held.contains(w.round()) && log.synced(w.ticket())) {
        into.add(w);
        it.remove();
      } else if (!held.contains(w.round())) {
        held.add(w.round());
      }
    }
  }

  /**
   * Hands each loop its rounds of {@code batch}, in order, as one task per loop (one wake-up), and
   * clears the batch.
   */
  private void post(List<Waiting> batch, boolean ok, long started, long ended) {
    while (!batch.isEmpty()) {
      Round round = batch.getFirst().round();
      List<Waiting> mine = new ArrayList<>();
      for (var it = batch.iterator(); it.hasNext(); ) {
        Waiting w = it.next();
        if (w.round() == round) {
          mine.add(w);
          it.remove();
        }
      }
      round.loop.execute(
          () -> {
            long now = System.nanoTime();
            round.atSyncer -= mine.size();
            for (Waiting w : mine) {
              waits.waited(w.drained(), started, ended, now);
              send(w.replies(), ok);
            }
          });
    }
  }

  /** Returns INFO persistence's fields of the reply path (see {@link ReplyWaits}). */
  public Map<String, Object> info() {
    return waits.info();
  }

  /** Stops the syncer; rounds still waiting are not sent. */
  @Override
  public void close() {
    closed = true;
    if (syncer != null) {
      syncer.interrupt();
    }
  }

  /** One event loop's replies since its last drain, and its rounds at the syncer (loop only). */
  private final class Round {
    final EventLoop loop;
    List<Reply> replies = new ArrayList<>();
    boolean drainQueued;

    /** Rounds of this loop at the syncer and not yet written. */
    int atSyncer;

    Round(EventLoop loop) {
      this.loop = loop;
    }

    void add(Reply reply) {
      replies.add(reply);
      if (!drainQueued) {
        drainQueued = true;
        loop.execute(this::drain);
      }
    }

    void drain() {
      drainQueued = false;
      List<Reply> batch = replies;
      replies = new ArrayList<>();
      long ticket = log.appendedTicket();
      if (syncer == null) {
        boolean ok = true;
        try {
          log.sync(ticket);
        } catch (RuntimeException e) {
          ok = false;
        }
        send(batch, ok);
      } else if (atSyncer == 0 && log.synced(ticket)) {
        waits.sentAtOnce();
        send(batch, true);
      } else {
        atSyncer++;
        toForce.add(new Waiting(this, batch, ticket, System.nanoTime()));
      }
    }
  }

  /**
   * A round handed to the syncer: its loop's state, its replies, the ticket they need and when it
   * was handed over.
   */
  private record Waiting(Round round, List<Reply> replies, long ticket, long drained) {}

  // A close that fails has nothing left to undo: the channel is closed either way.
  @SuppressWarnings("FutureReturnValueIgnored")
  private static void send(List<Reply> batch, boolean ok) {
    for (Reply r : batch) {
      r.connection.awaitingLog(-r.buffer.readableBytes());
      if (ok) {
        write(r.ctx, r.buffer, r.close);
        if (r.connection.paused()) {
          r.ctx.channel().pipeline().fireChannelWritabilityChanged();
        }
      } else {
        r.buffer.release();
        r.ctx.close();
      }
    }
  }

  private record Reply(
      ClientConnection connection, ChannelHandlerContext ctx, ByteBuf buffer, boolean close) {}
}
