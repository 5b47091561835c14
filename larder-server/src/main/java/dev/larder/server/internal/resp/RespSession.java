package dev.larder.server.internal.resp;

import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.net.ClientConnection;
import dev.larder.server.internal.net.ProtocolSession;
import dev.larder.server.internal.net.RequestPipeline;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.Lock;

/**
 * One RESP connection's state: selected database, protocol, authentication, client name and the
 * transaction being queued with its watched keys; its requests go to {@link RespDispatcher}.
 *
 * <p>Not thread-safe: used on the connection's event loop only.
 */
public final class RespSession implements ProtocolSession {
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
      new RespDecoder(server.config().maxRequestBytes(), c),
      new RequestPipeline(c, server.replies())
    };
  }

  @Override
  public void opened(ClientConnection c) {
    connection = c;
    info = new ServerState.ClientInfo(server.nextClientId(), c.address());
    authenticateAs(server.acl().initialUser());
    server.register(info);
  }

  @Override
  public void closed() {
    if (blockedOn != null) {
      cancelBlocked(blockedOn);
    }
    if (info != null) {
      server.unregister(info.id());
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
    connection.block();
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
  void unblocked(BlockedCall call) {
    if (blockedOn == call) {
      blockedOn = null;
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
    out.protocol(2);
    info.protocol(2);
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
