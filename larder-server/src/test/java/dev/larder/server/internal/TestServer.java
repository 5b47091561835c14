package dev.larder.server.internal;

import dev.larder.server.ServerConfig;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.memcache.MemcacheDispatcher;
import dev.larder.server.internal.persist.ServerLog;
import dev.larder.server.internal.resp.RespCommandTable;
import dev.larder.server.internal.resp.RespSession;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A server without sockets for protocol tests: shared state on a keyspace with a clock the test
 * moves, and Netty EmbeddedChannels carrying the real decoders and handlers.
 */
public final class TestServer implements AutoCloseable {
  /** The clock's start: 2026-01-01T00:00:00Z. */
  public static final long START = 1_767_225_600_000L;

  public final AtomicLong now = new AtomicLong(START);
  public final Keyspace keyspace;
  public final ServerState state;
  public final ServerLog log;
  private final RespCommandTable table = RespCommandTable.standard();

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

  public TestServer() {
    this(Map.of());
  }

  public TestServer(Map<String, String> settings) {
    ServerConfig config = ServerConfig.of(settings);
    keyspace = new Keyspace(config.maxMemory(), now::get);
    state = new ServerState(keyspace, config, scheduler);
    log = null;
  }

  /**
   * A server whose keyspace reads {@code clock} instead of {@link #now}: for a test whose clock
   * moves on as the server reads it (a command that reads it twice sees two times).
   */
  public TestServer(Map<String, String> settings, java.util.function.LongSupplier clock) {
    ServerConfig config = ServerConfig.of(settings);
    keyspace = new Keyspace(config.maxMemory(), clock);
    state = new ServerState(keyspace, config, scheduler);
    log = null;
  }

  /**
   * A server whose keyspace is recovered from, and logged to, {@code dir} (appendfsync everysec:
   * replies are written once the log is, on the channel's own loop).
   */
  public TestServer(Map<String, String> settings, Path dir, long startMillis) throws IOException {
    ServerConfig config = ServerConfig.of(settings);
    now.set(startMillis);
    keyspace = new Keyspace(config.maxMemory(), now::get);
    log =
        ServerLog.open(
            dir, "everysec", config.salvage(), config.checkpointLogBytes(), keyspace, now::get);
    state = new ServerState(keyspace, config, scheduler);
    state.persistence(log);
  }

  /** Returns a new RESP connection. */
  public Connection resp() {
    return new Connection(new EmbeddedChannel(RespSession.handlers(state, table)));
  }

  /** Returns a new memcached connection. */
  public Connection memcache() {
    return new Connection(
        new EmbeddedChannel(MemcacheDispatcher.handlers(state, state.memcacheStats())));
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    state.replies().close();
    if (log != null) {
      log.close();
    }
    keyspace.close();
  }

  /** One client connection: raw bytes in, the replies written back out as text. */
  public static final class Connection {
    public final EmbeddedChannel channel;

    Connection(EmbeddedChannel channel) {
      this.channel = channel;
    }

    /** Sends raw bytes and returns everything written back (ISO-8859-1). */
    public String raw(byte[] bytes) {
      channel.writeInbound(Unpooled.wrappedBuffer(bytes));
      channel.runPendingTasks();
      StringBuilder sb = new StringBuilder();
      ByteBuf out;
      while ((out = channel.readOutbound()) != null) {
        sb.append(out.toString(StandardCharsets.ISO_8859_1));
        out.release();
      }
      return sb.toString();
    }

    /**
     * Runs the connection's pending tasks (messages other connections queued for it) and returns
     * what they wrote.
     */
    public String read() {
      return raw(new byte[0]);
    }

    /** Sends text and returns the replies. */
    public String raw(String text) {
      return raw(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Sends one RESP command as a multibulk and returns its reply. */
    public String cmd(String... words) {
      return raw(multibulk(words));
    }

    /** Returns the words as one RESP multibulk request. */
    public static String multibulk(String... words) {
      StringBuilder sb = new StringBuilder("*").append(words.length).append("\r\n");
      for (String w : words) {
        sb.append('$')
            .append(w.getBytes(StandardCharsets.ISO_8859_1).length)
            .append("\r\n")
            .append(w)
            .append("\r\n");
      }
      return sb.toString();
    }
  }
}
