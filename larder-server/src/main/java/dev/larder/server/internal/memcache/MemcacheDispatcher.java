package dev.larder.server.internal.memcache;

import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.net.ClientConnection;
import dev.larder.server.internal.net.CrossProtocolGuard;
import dev.larder.server.internal.net.ProtocolSession;
import dev.larder.server.internal.net.ReplyLimitExceeded;
import dev.larder.server.internal.net.RequestPipeline;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * A memcached connection's protocol: runs each decoded text or meta command under the keyspace's
 * shared lock, the authentication exchange before it when the server has users, and the parts of a
 * streamed retrieval line; batching and back-pressure are {@link RequestPipeline}'s.
 *
 * <p>Not thread-safe: one instance per connection, on its event loop.
 */
public final class MemcacheDispatcher implements ProtocolSession, MemcacheStats.Connection {
  private final MemcacheSession session;
  private ClientConnection connection;
  private long connectionId;
  private MemcacheDecoder decoder;

  /**
   * memcached's reason for the close the watchers are told of: error once a protocol error ends it.
   */
  private String closeReason = "normal";

  private volatile long lastCommandMillis = System.currentTimeMillis();

  /**
   * Keys served so far of the streamed retrieval line, -1 once it failed, -2 once it was refused
   * because the server was loading.
   */
  private long streamedKeys;

  /**
   * @param server shared state
   * @param stats the server's memcached counters
   */
  public MemcacheDispatcher(ServerState server, MemcacheStats stats) {
    this.session = new MemcacheSession(server, stats);
  }

  /**
   * The handlers of a memcached connection: the decoder and the request pipeline.
   *
   * @param server shared state
   * @param stats the server's memcached counters
   * @return the handlers, in pipeline order
   */
  public static ChannelHandler[] handlers(ServerState server, MemcacheStats stats) {
    MemcacheDispatcher d = new MemcacheDispatcher(server, stats);
    ClientConnection c = new ClientConnection(d, server.clientMemory());
    d.decoder =
        new MemcacheDecoder(
            server.config().maxItemBytes(), server.config().maxRequestBytes(), c, stats);
    return new ChannelHandler[] {d.decoder, new RequestPipeline(c, server::replies)};
  }

  @Override
  public void opened(ClientConnection c) {
    connection = c;
    connectionId = session.stats.opened(this);
    session.connection = c;
    session.connectionId = connectionId;
    session.stats.watchers.connectionOpened(address(), connectionId);
  }

  @Override
  public void closed() {
    session.stats.closed(connectionId);
    session.stats.watchers.remove(session.watcher);
    session.stats.watchers.connectionClosed(address(), closeReason, connectionId);
  }

  @Override
  public void push(Object message, ByteBuf out) {
    MemcacheWatchers.Line line = (MemcacheWatchers.Line) message;
    if (!connection.accepting()) {
      // the watcher's earlier lines wait for it to read them: this one is lost, and counted
      session.stats.watchers.dropped(line);
      return;
    }
    MemcacheWatchers.written(line);
    out.writeBytes(line.bytes);
  }

  @Override
  public String state() {
    if (decoder != null && decoder.readingData()) {
      return "conn_nread";
    }
    return session.watcher != null ? "conn_watch" : "conn_parse_cmd";
  }

  @Override
  public String address() {
    return connection == null ? "?" : connection.address();
  }

  @Override
  public long lastCommandMillis() {
    return lastCommandMillis;
  }

  @Override
  public boolean closing() {
    return session.close;
  }

  @Override
  public boolean authenticated() {
    return session.authenticated;
  }

  @Override
  public long heldRequestBytes() {
    return 0;
  }

  @Override
  public void run(Object request, ByteBuf out) {
    session.out = out;
    lastCommandMillis = System.currentTimeMillis();
    int start = out.writerIndex();
    try {
      dispatch(request);
    } finally {
      session.stats.bytesWritten.add(Math.max(0, out.writerIndex() - start));
    }
  }

  @Override
  public void batchStarted() {
    session.repliesHeld = false;
  }

  private void dispatch(Object request) {
    session.writtenOut = false;
    try {
      dispatchHeld(request);
    } finally {
      session.repliesHeld = !session.writtenOut;
    }
  }

  private void dispatchHeld(Object request) {
    switch (request) {
      case MemcacheFrame.Command c -> run(c);
      case MemcacheFrame.Keys k -> streamed(k);
      case MemcacheFrame.TooLarge t -> tooLarge(t);
      case MemcacheFrame.Error e -> {
        streamedKeys = 0;
        session.line(e.line());
        session.close |= e.close();
        if (e.close()) {
          closeReason = "error";
        }
      }
      default -> throw new IllegalStateException("unexpected message " + request);
    }
  }

  private void run(MemcacheFrame.Command c) {
    if (c.tokens().isEmpty()) {
      session.line("ERROR");
      return;
    }
    session.server.commandProcessed();
    String name = new String(c.tokens().getFirst(), StandardCharsets.US_ASCII);
    TextCommands.Command cmd = TextCommands.TABLE.get(name);
    if (cmd == null) {
      cmd = MetaCommands.TABLE.get(name);
    }
    if (cmd == null && CrossProtocolGuard.memcacheHttp(c.tokens())) {
      closeReason = "error";
      session.server.crossProtocolGuard().refuse(connection, "memcached");
      return;
    }
    if (!session.authenticated) {
      authenticate(name, c);
      return;
    }
    if (cmd == null) {
      session.line("ERROR");
      return;
    }
    if (refusedWhileLoading(name)) {
      return;
    }
    if (name.equals("cache_memlimit")) {
      // rebuilds the keyspace: no command may run meanwhile, as for CONFIG SET maxmemory
      locked(cmd, c.tokens(), c.data(), session.keyspace().exclusive());
    } else {
      locked(cmd, c.tokens(), c.data());
    }
  }

  /**
   * memcached has no loading state; while a durable server loads, every command that reads or
   * changes items (and {@code flush_all}, {@code me}) is answered {@value #LOADING}, noreply or
   * quiet mode notwithstanding, as memcached sends its errors; the others ({@code stats}, {@code
   * version}, {@code verbosity}, {@code mn}, {@code quit}, {@code shutdown}) run.
   *
   * @return whether the command was refused (and answered)
   */
  private boolean refusedWhileLoading(String name) {
    if (session.server.loading() == null || WHILE_LOADING.contains(name)) {
      return false;
    }
    session.line(LOADING);
    return true;
  }

  /** The reply to a command that needs the items while the server loads them. */
  static final String LOADING = "SERVER_ERROR loading the dataset in memory";

  private static final java.util.Set<String> WHILE_LOADING =
      java.util.Set.of("stats", "version", "verbosity", "mn", "quit", "shutdown");

  /** Runs a command under the shared lock; a store's refusal is its SERVER_ERROR. */
  private void locked(TextCommands.Command command, List<byte[]> tokens, byte[] data) {
    locked(command, tokens, data, session.keyspace().shared());
  }

  @SuppressWarnings("ReferenceEquality") // translate returns its argument if no reply limit
  private void locked(TextCommands.Command command, List<byte[]> tokens, byte[] data, Lock lock) {
    int mark = session.out.writerIndex();
    lock.lock();
    try {
      command.run(session, tokens, data);
    } catch (ReplyLimitExceeded e) {
      session.out.writerIndex(mark);
      throw e;
    } catch (RuntimeException e) {
      // The store refused the value (larger than a segment can hold) or similar.
      RuntimeException limit = ReplyLimitExceeded.translate(session.out, e);
      session.out.writerIndex(mark);
      if (limit != e) {
        throw limit;
      }
      session.line(
          "SERVER_ERROR "
              + (e.getMessage() == null ? e.toString() : e.getMessage())
                  .replace('\r', ' ')
                  .replace('\n', ' '));
    } finally {
      lock.unlock();
    }
  }

  /** Keys of a retrieval line too long to hold whole, as they arrive. */
  private void streamed(MemcacheFrame.Keys k) {
    if (streamedKeys == 0 && session.authenticated && session.server.loading() != null) {
      // a retrieval line too long to hold whole, while the server loads: refused once, at its end
      streamedKeys = -2;
    }
    if (streamedKeys >= 0 && session.authenticated) {
      if (streamedKeys == 0) {
        session.server.commandProcessed();
      }
      streamedKeys += k.keys().size();
      boolean end = k.last() && streamedKeys > 0;
      locked(
          (s, head, _) -> {
            if (!TextCommands.streamedGet(s, head, k.keys(), end)) {
              streamedKeys = -1;
            }
          },
          k.head(),
          null);
    }
    if (k.last()) {
      if (!session.authenticated) {
        session.line("CLIENT_ERROR unauthenticated");
      } else if (streamedKeys == -2) {
        session.line(LOADING);
      } else if (streamedKeys == 0) {
        session.line("ERROR");
      }
      streamedKeys = 0;
    }
  }

  /** A data block over the item limit: memcached removes the item a set would replace. */
  private void tooLarge(MemcacheFrame.TooLarge t) {
    session.close |= t.close();
    if (!session.authenticated) {
      session.line("CLIENT_ERROR unauthenticated");
      return;
    }
    session.server.commandProcessed();
    if (session.server.loading() != null) {
      session.line(LOADING);
      return;
    }
    boolean meta = t.tokens().getFirst().length == 2;
    locked(meta ? MetaCommands::tooLarge : TextCommands::tooLarge, t.tokens(), null);
  }

  /** memcached -Y's exchange: a {@code set} whose data is "user password" (see MemcacheAuth). */
  private void authenticate(String name, MemcacheFrame.Command c) {
    if (name.equals("set") && c.data() != null) {
      session.stats.authCmds.increment();
    }
    if (!name.equals("set") || c.data() == null) {
      session.line("CLIENT_ERROR unauthenticated");
      return;
    }
    String[] words = new String(c.data(), StandardCharsets.UTF_8).strip().split(" +", -1);
    // memcached reads the first two words and ignores any more.
    if (words.length < 2) {
      session.line("CLIENT_ERROR bad authentication token format");
    } else if (session
        .server
        .memcacheAuth()
        .check(
            words[0].getBytes(StandardCharsets.UTF_8), words[1].getBytes(StandardCharsets.UTF_8))) {
      session.authenticated = true;
      session.line("STORED");
    } else {
      session.stats.authErrors.increment();
      session.line("CLIENT_ERROR authentication failure");
    }
  }
}
