package dev.larder.server.internal.resp;

import dev.larder.server.internal.blocking.BlockedClients;
import dev.larder.server.internal.blocking.Waiter;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import dev.larder.server.internal.pubsub.KeyEvents;
import java.util.List;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * A blocking command of one RESP connection (BLPOP, BLMOVE, BLMPOP, BZPOPMIN, BZMPOP), as {@link
 * BlockedClients} holds it while it waits: it tries to take what it wants from each key in turn
 * ({@link #take}), and blocks its connection when there is nothing, until a write serves it ({@link
 * #serve}), its timeout passes or the connection closes.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>{@link #run} follows the registry's protocol: attempt; in a transaction answer the empty reply
 * at once; else register, attempt again (a write between the two attempts finds the waiter
 * registered), and block the connection if that finds nothing too. The served reply is written on
 * the connection's event loop ({@link dev.larder.server.internal.net.ClientConnection#unblock}),
 * whichever thread served it; the timeout runs there too, and withdraws the waiter under the
 * keyspace's shared lock, so it never races a serving (which holds the exclusive lock).
 *
 * <p>A serving runs as a command of the blocked client, as Redis runs it: its changes are published
 * as keyspace events (the pop's, named by the pop itself) and invalidate tracked keys in the
 * blocked client's name, in a {@link KeyEvents} scope of its own, opened on the serving thread
 * after the writing command's scope has ended.
 *
 * <p>Not thread-safe beyond that: {@link #serve} runs on the serving thread, everything else on the
 * connection's event loop.
 */
abstract class BlockedCall extends Waiter {
  /** The connection; its writer is used on its event loop only. */
  final RespSession session;

  private volatile Future<?> timeout;

  /** The command's name, for the scope of its serving; set by {@link #run} before it blocks. */
  private volatile String command = "";

  /**
   * @param session the connection
   * @param keys the keys it waits on
   */
  BlockedCall(RespSession session, List<byte[]> keys) {
    super(session.info.id(), session.db, keys);
    this.session = session;
  }

  /**
   * Takes what the command wants from {@code key} now: under the command's lock when it runs, under
   * the keyspace's exclusive lock when a write of {@code key} serves it.
   *
   * @param key one of the keys it waits on
   * @return the reply to write for what it took, or null if there is nothing to take there
   * @throws RespError for a key of the wrong type when it runs (WRONGTYPE), or a final error reply
   *     (BLMOVE's destination of the wrong type)
   */
  abstract Consumer<RespWriter> take(byte[] key);

  /**
   * Tries each key in order, under the command's lock, and writes the first reply.
   *
   * @return whether it took something (and wrote its reply)
   * @throws RespError for a key of the wrong type, as the command's reply
   */
  private boolean attempt(RespWriter out) {
    for (byte[] key : keys()) {
      Consumer<RespWriter> taken = take(key);
      if (taken != null) {
        taken.accept(out);
        return true;
      }
    }
    return false;
  }

  /**
   * Writes the reply for "nothing to take" inside a transaction, where nothing blocks: the null
   * array, as for every blocking pop.
   */
  void writeEmpty(RespWriter out) {
    out.nullArray();
  }

  /** Writes the reply for a timeout (Redis 7.0: the null array for every list command). */
  void writeTimeout(RespWriter out) {
    out.nullArray();
  }

  /**
   * Runs the command: answers at once if it can, or in a transaction; else blocks the connection.
   *
   * @param c the call
   * @param timeoutNanos how long to wait, 0 for ever
   */
  final void run(RespCall c, long timeoutNanos) {
    command = c.command.name();
    if (attempt(c.out())) {
      return;
    }
    if (session.executing) {
      writeEmpty(c.out());
      return;
    }
    BlockedClients registry = c.server().blockedClients();
    registry.block(this);
    boolean done;
    try {
      done = attempt(c.out());
    } catch (RuntimeException e) {
      registry.cancel(this);
      throw e;
    }
    if (done) {
      registry.cancel(this);
      return;
    }
    session.block(this);
    if (timeoutNanos > 0) {
      timeout = session.connection.schedule(this::timedOut, timeoutNanos);
    }
  }

  /**
   * Answers a waiter CLIENT UNBLOCK withdrew from the registry: as if it timed out, or with Redis's
   * UNBLOCKED error. Any thread.
   *
   * @param error whether to answer the error instead of the timeout's reply
   */
  final void unblockedByClient(boolean error) {
    reply(
        error
            ? out -> out.error("UNBLOCKED client unblocked via CLIENT UNBLOCK")
            : this::writeTimeout);
  }

  /** On the event loop: withdraws the waiter if it still waits, and answers the timeout. */
  private void timedOut() {
    if (session.cancelBlocked(this)) {
      reply(this::writeTimeout);
    }
  }

  /**
   * Hands the reply to the connection, from the serving thread or the event loop; the connection
   * writes it on its event loop and goes on with its next request.
   *
   * @param writer writes the reply
   */
  final void reply(Consumer<RespWriter> writer) {
    Future<?> t = timeout;
    if (t != null) {
      t.cancel(false);
    }
    session.connection.unblock(
        buf -> {
          session.unblocked(this);
          session.out.target(buf);
          writer.accept(session.out);
        });
  }

  @Override
  protected final Outcome serve(byte[] key) {
    KeyEvents events = session.server.keyEvents();
    Object scope =
        events.begin(session.info.id(), command, type() == ValueType.LIST ? "list" : "sorted_set");
    try {
      return serveFrom(key) ? Outcome.DONE : Outcome.EMPTY;
    } catch (RespError e) {
      String message = e.getMessage();
      reply(out -> out.error(message));
      return Outcome.DONE;
    } catch (RuntimeException e) {
      // A clustered keyspace's refusal or timeout: leave it waiting; a later write retries.
      return Outcome.EMPTY;
    } finally {
      events.end(scope);
    }
  }

  /**
   * Takes what the command wants from {@code key}, just written, and replies ({@link #reply});
   * under the keyspace's exclusive lock. A key holding another type leaves it waiting.
   *
   * @return whether it took something; false leaves it waiting
   * @throws RespError a final error reply (BLMOVE's destination of the wrong type)
   */
  private boolean serveFrom(byte[] key) {
    StoredValue v = session.server.keyspace().peekType(db(), key);
    if (v != null && v.type() != type()) {
      return false;
    }
    Consumer<RespWriter> taken = take(key);
    if (taken == null) {
      return false;
    }
    reply(taken);
    return true;
  }
}
