package dev.larder.server.internal.resp;

import dev.larder.cluster.ClusterException;
import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.cluster.ServerCluster;
import dev.larder.server.internal.net.ClientConnection;
import dev.larder.server.internal.net.ProtocolSession;
import dev.larder.server.internal.net.RequestPipeline;
import dev.larder.server.internal.pubsub.PushMessage;
import dev.larder.server.internal.pubsub.Subscriber;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.locks.Lock;

/**
 * One RESP connection's state: selected database, protocol, authentication, client name, the
 * transaction being queued with its watched keys, its pub/sub subscriptions and its client-side
 * caching mode; its requests go to {@link RespDispatcher}.
 *
 * <p>Not thread-safe: used on the connection's event loop only, but for {@link Subscriber}'s
 * methods, which other connections call (the subscription sets are concurrent for them).
 */
public final class RespSession implements ProtocolSession, Subscriber {
  static final byte[] INVALIDATE_CHANNEL = "__redis__:invalidate".getBytes(StandardCharsets.UTF_8);
  private static final byte[] MESSAGE = "message".getBytes(StandardCharsets.UTF_8);
  private static final byte[] PMESSAGE = "pmessage".getBytes(StandardCharsets.UTF_8);
  private static final byte[] INVALIDATE = "invalidate".getBytes(StandardCharsets.UTF_8);

  /** Channels subscribed to; read by publishers' threads. */
  final Set<ByteBuffer> channels = ConcurrentHashMap.newKeySet();

  /** Patterns subscribed to. */
  final Set<ByteBuffer> patterns = ConcurrentHashMap.newKeySet();

  /** The protocol, for other threads (the writer's is the loop's). */
  private volatile int protocolVersion = 2;

  /** CLIENT CACHING yes (OPTIN) or no (OPTOUT) was sent for the next command. */
  boolean cachingFlag;

  /** CLIENT REPLY OFF: replies are dropped until CLIENT REPLY ON. */
  boolean replyOff;

  /** CLIENT REPLY SKIP: the next command's reply is dropped. */
  boolean skipReply;

  final ServerState server;
  ServerState.ClientInfo info;
  ClientConnection connection;
  final RespCommandTable table;
  final RespWriter out = new RespWriter();
  int db;

  /** The user the connection is authenticated as; null until AUTH when one is needed. */
  AclUser user;

  List<RespFrame.Command> queued;
  long queuedBytes;
  boolean queueFailed;
  final List<Watch> watched = new ArrayList<>();
  boolean closeAfterReply;

  /** True while EXEC runs the queue: blocking commands answer at once instead of blocking. */
  boolean executing;

  /** The blocking command the connection waits on, or null. */
  private BlockedCall blockedOn;

  /**
   * The acknowledgements the command just run left pending ({@link RespDispatcher} hands them to
   * {@link #awaitAcks}), or null.
   */
  CompletableFuture<Void> pendingAcks;

  /** The request a CLIENT PAUSE holds back, or null. */
  private List<byte[]> postponed;

  /** READONLY: reads of slots this member replicates run here; keyed commands may get MOVED. */
  boolean readOnly;

  /** The name bytes of the last command looked up, and what they looked up. */
  private byte[] lastName;

  private Lookup lastLookup;

  /**
   * A session for a connection not yet open: {@link #opened} gives it its CLIENT LIST entry.
   *
   * @param server the shared server state
   * @param table the command table
   */
  public RespSession(ServerState server, RespCommandTable table) {
    this.server = server;
    this.table = table;
  }

  /**
   * The handlers of a RESP connection: the decoder and the request pipeline over a new session.
   *
   * @param server the shared server state
   * @param table the command table
   * @return the handlers, in pipeline order
   */
  public static ChannelHandler[] handlers(ServerState server, RespCommandTable table) {
    ClientConnection c =
        new ClientConnection(new RespSession(server, table), server.clientMemory());
    return new ChannelHandler[] {
      new RespDecoder(server.config().maxRequestBytes(), c), new RequestPipeline(c, server::replies)
    };
  }

  @Override
  public void opened(ClientConnection c) {
    connection = c;
    info =
        new ServerState.ClientInfo(
            server.nextClientId(), c.address(), c.localAddress(), () -> c.disconnect(null, null));
    authenticateAs(server.acl().initialUser());
    server.register(info);
    server.tracking().connected(this);
  }

  @Override
  public void closed() {
    if (blockedOn != null) {
      cancelBlocked(blockedOn);
    }
    if (postponed != null) {
      server.clientPause().forget(this);
    }
    if (info != null) {
      server.unregister(info.id());
      server.tracking().disconnected(info.id());
      unsubscribeAll();
    }
  }

  /** Leaves every channel and pattern, without replies (a closed or reset connection). */
  private void unsubscribeAll() {
    for (ByteBuffer ch : channels) {
      server.pubsub().unsubscribe(this, bytes(ch));
    }
    for (ByteBuffer p : patterns) {
      server.pubsub().punsubscribe(this, bytes(p));
    }
    channels.clear();
    patterns.clear();
    info.subscriptions(0, 0);
  }

  static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  /** Returns the number of channels and patterns subscribed to. */
  int subscriptions() {
    return channels.size() + patterns.size();
  }

  /** Changes the protocol (HELLO, RESET). */
  void protocol(int version) {
    out.protocol(version);
    info.protocol(version);
    protocolVersion = version;
  }

  @Override
  public long id() {
    return info.id();
  }

  @Override
  public boolean deliver(PushMessage message) {
    return connection.push(message, message.bytes());
  }

  @Override
  public int protocol() {
    return protocolVersion;
  }

  @Override
  public boolean subscribedTo(byte[] channel) {
    return channels.contains(ByteBuffer.wrap(channel));
  }

  @Override
  public void push(Object message, ByteBuf reply) {
    out.target(reply);
    switch ((PushMessage) message) {
      case PushMessage.Message m -> {
        if (subscribedTo(m.channel())) {
          out.push(3);
          out.bulk(MESSAGE);
          out.bulk(m.channel());
          out.bulk(m.payload());
        }
      }
      case PushMessage.PatternMessage m -> {
        if (patterns.contains(ByteBuffer.wrap(m.pattern()))) {
          out.push(4);
          out.bulk(PMESSAGE);
          out.bulk(m.pattern());
          out.bulk(m.channel());
          out.bulk(m.payload());
        }
      }
      case PushMessage.Invalidation m -> invalidation(m.keys());
      case PushMessage.RedirectBroken m -> {
        if (out.protocol() == 3) {
          out.push(2);
          out.bulk("tracking-redir-broken");
          out.integer(m.redirect());
        }
      }
    }
  }

  /**
   * An invalidation: RESP3's push; for a RESP2 client subscribed to {@code __redis__:invalidate} (a
   * redirect target), a message on that channel whose payload is the array of keys; otherwise
   * nothing, as RESP2 has no way to send it on the connection.
   */
  private void invalidation(byte[][] keys) {
    if (out.protocol() == 3) {
      out.push(2);
      out.bulk(INVALIDATE);
    } else if (subscribedTo(INVALIDATE_CHANNEL)) {
      out.push(3);
      out.bulk(MESSAGE);
      out.bulk(INVALIDATE_CHANNEL);
    } else {
      return;
    }
    if (keys == null) {
      out.nullArray();
      return;
    }
    out.array(keys.length);
    for (byte[] k : keys) {
      out.bulk(k);
    }
  }

  @Override
  public void run(Object request, ByteBuf reply) {
    out.target(reply);
    switch (request) {
      case RespFrame.Command c -> RespDispatcher.dispatch(this, c.args());
      case RespFrame.ProtocolError e -> {
        out.error(e.message());
        closeAfterReply = true;
      }
      default -> throw new IllegalStateException("unexpected message " + request);
    }
  }

  @Override
  public boolean closing() {
    return closeAfterReply;
  }

  @Override
  public boolean authenticated() {
    return user != null;
  }

  @Override
  public long heldRequestBytes() {
    return queuedBytes;
  }

  /**
   * @param u the user the connection now acts as, or null for none
   */
  void authenticateAs(AclUser u) {
    user = u;
    info.user(u == null ? AclUsers.DEFAULT : u.name());
  }

  /**
   * The command just run blocks: no further request runs until it is answered. Event loop only.
   *
   * @param call the blocked command, registered with the server's blocked clients
   */
  void block(BlockedCall call) {
    blockedOn = call;
    info.blocked(true);
    connection.block();
  }

  /**
   * Holds the reply just written (from {@code from} to the end of the reply buffer) until the
   * owners acknowledged the command's puts: if they have, it stays where it is (or, if they
   * refused, is replaced by the error the command would have answered); else it is taken out of the
   * buffer, the connection runs no further request (as a blocked command's), and once the
   * acknowledgements are in, the reply (or the error) is written on the connection's event loop and
   * the requests that arrived meanwhile run. A connection that closes meanwhile is not answered.
   * Event loop only.
   *
   * @param acks the acknowledgements ({@link dev.larder.server.internal.cluster.PendingAcks})
   * @param from where the reply starts in the buffer; a reply dropped by CLIENT REPLY leaves
   *     nothing after it, and then an error is dropped too
   */
  // whenComplete's stage ends the chain: its action answers the client, failure included
  @SuppressWarnings("FutureReturnValueIgnored")
  void awaitAcks(CompletableFuture<Void> acks, int from) {
    ByteBuf buf = out.target();
    int length = buf.writerIndex() - from;
    if (acks.isDone()) {
      if (acks.state() == Future.State.FAILED && length > 0) {
        buf.writerIndex(from);
        out.error(ackError(acks.exceptionNow()));
      }
      return;
    }
    byte[] reply = new byte[length];
    buf.getBytes(from, reply);
    buf.writerIndex(from);
    connection.block();
    acks.whenComplete(
        (ok, failure) ->
            connection.unblock(
                target -> {
                  if (failure == null || reply.length == 0) {
                    target.writeBytes(reply);
                  } else {
                    out.target(target);
                    out.error(ackError(failure));
                  }
                }));
  }

  /** The error a write answers when its owners did not acknowledge it. */
  private static String ackError(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof ClusterException e) {
      return ServerCluster.respError(e);
    }
    return "ERR " + (cause.getMessage() == null ? cause.toString() : cause.getMessage());
  }

  /**
   * A CLIENT PAUSE holds the request back ({@link ClientPause#holds} queued this session): no
   * further request runs until {@link #resumePostponed}. Event loop only.
   *
   * @param args the request, run again from the start when the pause ends
   */
  void postpone(List<byte[]> args) {
    postponed = args;
    info.blocked(true);
    connection.block();
  }

  /**
   * The pause that held the request back ended: runs it on the connection's event loop (where a
   * later pause may hold it again), then the requests that arrived meanwhile. From any thread.
   */
  void resumePostponed() {
    connection.unblock(
        reply -> {
          List<byte[]> args = postponed;
          postponed = null;
          info.blocked(false);
          if (args != null) {
            run(new RespFrame.Command(args), reply);
          }
        });
  }

  /**
   * Withdraws a blocked command that still waits (its timeout, or the connection closing), under
   * the keyspace's shared lock so that no serving runs meanwhile. Event loop only.
   *
   * @param call the blocked command
   * @return whether it still waited; false if a write served it already
   */
  boolean cancelBlocked(BlockedCall call) {
    Lock shared = server.keyspace().shared();
    shared.lock();
    try {
      return server.blockedClients().cancel(call);
    } finally {
      shared.unlock();
    }
  }

  /**
   * The blocked command's reply is being written: the connection runs requests again. Event loop
   * only.
   *
   * @param call the command that was blocked
   */
  @SuppressWarnings("ReferenceEquality") // only the call this session is blocked on clears it
  void unblocked(BlockedCall call) {
    if (blockedOn == call) {
      blockedOn = null;
      info.blocked(false);
    }
  }

  /** Returns the writer replies go through. */
  public RespWriter out() {
    return out;
  }

  /** Returns whether MULTI is queueing commands. */
  boolean inMulti() {
    return queued != null;
  }

  /** Leaves MULTI and forgets the watched keys. */
  void endTransaction() {
    queued = null;
    queuedBytes = 0;
    queueFailed = false;
    watched.clear();
  }

  /** Back to a fresh connection's state (RESET). */
  void reset() {
    endTransaction();
    readOnly = false;
    db = 0;
    info.db(0);
    protocol(2);
    unsubscribeAll();
    server.tracking().off(info.id());
    info.redirect(-1);
    cachingFlag = false;
    replyOff = false;
    skipReply = false;
    info.name("");
    authenticateAs(server.acl().initialUser());
  }

  /**
   * A key WATCH saw and the version it had.
   *
   * @param db its database
   * @param key the key
   * @param version its version then, 0 if absent
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  record Watch(int db, byte[] key, long version) {}

  /**
   * A command name looked up.
   *
   * @param name the lower-case name
   * @param command its table entry, or null if there is none
   */
  record Lookup(String name, RespCommand command) {}

  /**
   * Looks a command up by the bytes of its name, remembering the last one, so that a connection
   * that repeats a command (a pipeline, a load tool) builds no name string per request.
   *
   * @param name the name as the client sent it
   * @return its lower-case name and table entry
   */
  Lookup lookup(byte[] name) {
    if (!Arrays.equals(name, lastName)) {
      String lower = new String(name, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
      lastLookup = new Lookup(lower, table.get(lower));
      lastName = name.clone();
    }
    return lastLookup;
  }
}
