package dev.larder.server.internal.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.ServerConfig;
import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.persist.ServerLog;
import dev.larder.server.internal.resp.RespCommandTable;
import dev.larder.server.internal.resp.RespSession;
import dev.larder.testing.Await;
import dev.larder.wal.FileLayer;
import dev.larder.wal.testing.HookedFiles;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under {@code appendfsync always} no reply leaves before the log is forced up to everything
 * appended before it: while the disk holds a force, a write's reply and a read of what it wrote
 * both wait, and both arrive once the force completes; replies waiting for it hold the connection
 * within its output limit; a lone writer's forces are not held back for writes of others.
 */
class DurableRepliesTest {

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void repliesWaitForTheForce(@TempDir Path dir) throws Exception {
    HeldDisk disk = new HeldDisk();
    try (DurableServer server = new DurableServer(dir, disk, Map.of());
        Socket writer = connect(server.port);
        Socket reader = connect(server.port)) {
      send(writer, "SET", "k", "1");
      assertEquals("+OK\r\n", read(writer, 5));

      disk.hold(true);
      send(writer, "SET", "k", "2");
      assertEquals("", read(writer, 5), "a write answered before its record was forced");
      send(reader, "GET", "k");
      assertEquals("", read(reader, 7), "a read answered before what it saw was forced");

      disk.hold(false);
      assertEquals("+OK\r\n", read(writer, 5));
      assertEquals("$1\r\n2\r\n", read(reader, 7));
    }
  }

  /**
   * A force answers only the rounds whose records it wrote: a write on another event loop appended
   * while a force is under way (after its write) is handed to the syncer during that force, and its
   * reply waits for the next force, which the disk holds; it arrives once that force completes.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aWriteAppendedDuringAForceWaitsForTheNext(@TempDir Path dir) throws Exception {
    HeldDisk disk = new HeldDisk();
    try (DurableServer server = new DurableServer(dir, disk, Map.of(), 2);
        Socket first = connect(server.port);
        Socket second = connect(server.port)) {
      send(first, "SET", "a", "0");
      assertEquals("+OK\r\n", read(first, 5));
      send(second, "SET", "b", "0");
      assertEquals("+OK\r\n", read(second, 5));

      disk.hold(true);
      send(first, "SET", "a", "1");
      disk.awaitForcesHeld(1);
      // a's record is written and its force held: b's record is appended after that write
      send(second, "SET", "b", "1");
      assertEquals("", read(second, 5), "b answered before any force completed");

      disk.letOneForceThrough();
      assertEquals("+OK\r\n", readAnswer(first, 5));
      assertEquals("", read(second, 5), "b answered by a force that began before b was appended");

      disk.hold(false);
      assertEquals("+OK\r\n", readAnswer(second, 5));
    }
  }

  /**
   * A force held back to gather the writes of the clients the last force answered still answers
   * only what it forced: the first client's write is forced alone while the second's is appended;
   * the second's force then waits for a write from the first that never comes (at most half the
   * last force's length), and its reply waits past that wait for its own force, which the disk
   * holds.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aForceHeldBackToGatherStillAnswersOnlyWhatItForced(@TempDir Path dir) throws Exception {
    HeldDisk disk = new HeldDisk();
    try (DurableServer server = new DurableServer(dir, disk, Map.of());
        Socket first = connect(server.port);
        Socket second = connect(server.port)) {
      send(first, "SET", "a", "0");
      assertEquals("+OK\r\n", read(first, 5));

      disk.hold(true);
      send(first, "SET", "a", "1");
      disk.awaitForcesHeld(1);
      send(second, "SET", "b", "1");
      // A long force (setup, not a measure): the wait it allows the next one is half of it.
      Thread.sleep(2_000);
      disk.letOneForceThrough();
      assertEquals("+OK\r\n", readAnswer(first, 5));
      // the wait is over once b's force is held
      disk.awaitForcesHeld(1);
      assertEquals("", read(second, 5), "b answered before a force covered it");

      disk.hold(false);
      assertEquals("+OK\r\n", readAnswer(second, 5));
      Map<String, Object> info = server.state.replies().info();
      assertTrue(((Number) info.get("larder_reply_gathers")).longValue() >= 1, info.toString());
    }
  }

  /**
   * A lone writer is never held back for others' writes: each force carries its one write, and its
   * next write is all the next force waits for, so no force waits and each write costs one force.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aLoneWriterIsNeverHeldBack(@TempDir Path dir) throws Exception {
    int writes = 100;
    try (DurableServer server = new DurableServer(dir, new HeldDisk(), Map.of());
        Socket writer = connect(server.port)) {
      for (int i = 0; i < writes; i++) {
        send(writer, "SET", "k", Integer.toString(i % 10));
        assertEquals("+OK\r\n", readAnswer(writer, 5), "write " + i);
      }
      Map<String, Object> info = server.state.replies().info();
      assertEquals(0L, info.get("larder_reply_gathers"), info.toString());
      assertTrue(((Number) info.get("larder_reply_forces")).longValue() >= writes, info.toString());
    }
  }

  /**
   * Replies waiting for a force count as the connection's unsent output: a client that pipelines a
   * write and then far more replies than its output limit while the disk holds the write's force is
   * paused with about one batch of replies counted (not left to pile them all up uncounted), and
   * gets every reply once the disk is released.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void repliesWaitingForTheForcePauseTheConnection(@TempDir Path dir) throws Exception {
    HeldDisk disk = new HeldDisk();
    int valueBytes = 16 * 1024;
    int gets = 400; // 6.4 MB of replies against a 1 MB output limit
    try (DurableServer server =
            new DurableServer(dir, disk, Map.of("client-output-buffer-limit", "1mb"));
        Socket client = connect(server.port)) {
      send(client, "SET", "big", "v".repeat(valueBytes));
      assertEquals("+OK\r\n", read(client, 5));

      disk.hold(true);
      // A write first: the GETs' replies then wait for its force (reads of what is already
      // forced alone would be answered at once).
      StringBuilder pipeline = new StringBuilder("*3\r\n$3\r\nSET\r\n$1\r\nw\r\n$1\r\n1\r\n");
      for (int i = 0; i < gets; i++) {
        pipeline.append("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n");
      }
      client.getOutputStream().write(pipeline.toString().getBytes(StandardCharsets.US_ASCII));
      assertEquals("", read(client, 1), "a reply sent before its force");
      // Paused once a batch of replies waits: about 64 KiB counted, not 6.4 MB held uncounted.
      ClientMemory memory = server.state.clientMemory();
      Await.until(
          "the replies waiting for the force counted",
          Duration.ofSeconds(20),
          () -> memory.used() >= 64 * 1024);
      assertTrue(memory.used() < 512 * 1024, memory.used() + " bytes held");

      disk.hold(false);
      byte[] reply =
          ("$" + valueBytes + "\r\n" + "v".repeat(valueBytes) + "\r\n")
              .getBytes(StandardCharsets.US_ASCII);
      client.setSoTimeout(20_000);
      InputStream in = client.getInputStream();
      assertEquals("+OK\r\n", new String(in.readNBytes(5), StandardCharsets.US_ASCII));
      for (int i = 0; i < gets; i++) {
        byte[] got = in.readNBytes(reply.length);
        assertEquals(
            reply.length,
            got.length,
            "the connection was closed after " + i + " replies of " + gets);
      }
    }
  }

  /** A RESP listener on loopback over a keyspace logged under appendfsync always to a disk. */
  private static final class DurableServer implements AutoCloseable {
    final int port;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final Keyspace keyspace;
    private final ServerLog log;
    final ServerState state;
    private final EventLoopGroup loops;
    private final Channel listener;
    private final HeldDisk disk;

    DurableServer(Path dir, HeldDisk disk, Map<String, String> settings) throws Exception {
      this(dir, disk, settings, 1);
    }

    /** Connections are spread over {@code eventLoops} loops, one after the other. */
    DurableServer(Path dir, HeldDisk disk, Map<String, String> settings, int eventLoops)
        throws Exception {
      this.disk = disk;
      this.loops = new MultiThreadIoEventLoopGroup(eventLoops, NioIoHandler.newFactory());
      ServerConfig config = ServerConfig.of(settings);
      keyspace = new Keyspace(config.maxMemory(), System::currentTimeMillis);
      log =
          ServerLog.open(
              dir, "always", false, 0, keyspace, System::currentTimeMillis, disk.files());
      state = new ServerState(keyspace, config, scheduler);
      state.persistence(log);
      RespCommandTable table = RespCommandTable.standard();
      listener =
          new ServerBootstrap()
              .group(loops)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ch.pipeline().addLast(RespSession.handlers(state, table));
                    }
                  })
              .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
              .sync()
              .channel();
      port = ((InetSocketAddress) listener.localAddress()).getPort();
    }

    @Override
    public void close() {
      disk.hold(false); // a failed assertion must not leave the log's close waiting on the disk
      listener.close().syncUninterruptibly();
      loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      state.replies().close();
      log.close();
      keyspace.close();
      scheduler.shutdownNow();
    }
  }

  private static Socket connect(int port) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
    s.setSoTimeout(300);
    return s;
  }

  private static void send(Socket s, String... words) throws IOException {
    StringBuilder sb = new StringBuilder("*").append(words.length).append("\r\n");
    for (String w : words) {
      sb.append('$').append(w.length()).append("\r\n").append(w).append("\r\n");
    }
    s.getOutputStream().write(sb.toString().getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * Reads up to {@code n} bytes: what arrives within 300 ms of the last byte while the disk is held
   * (nothing, if the server waits as it must), all n once it answers.
   */
  private static String read(Socket s, int n) throws IOException {
    InputStream in = s.getInputStream();
    StringBuilder sb = new StringBuilder();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (sb.length() < n && System.nanoTime() < deadline) {
      try {
        int b = in.read();
        if (b < 0) {
          break;
        }
        sb.append((char) b);
      } catch (SocketTimeoutException quiet) {
        if (sb.isEmpty() && HeldDisk.held) {
          return "";
        }
      }
    }
    return sb.toString();
  }

  /** Reads {@code n} bytes, waiting up to 20 s for them whether or not the disk is held. */
  private static String readAnswer(Socket s, int n) throws IOException {
    s.setSoTimeout(20_000);
    try {
      byte[] got = s.getInputStream().readNBytes(n);
      return new String(got, StandardCharsets.US_ASCII);
    } finally {
      s.setSoTimeout(300);
    }
  }

  /**
   * The real file system, except that a force waits while the disk is held (unless let through one
   * at a time).
   */
  static final class HeldDisk {
    static volatile boolean held;

    /** Forces that may complete while held. */
    private int passes;

    /** Forces waiting in the hook now. */
    private int waiting;

    synchronized void hold(boolean on) {
      held = on;
      notifyAll();
    }

    /** Lets one held force (waiting now or the next) complete; the disk stays held. */
    synchronized void letOneForceThrough() {
      passes++;
      notifyAll();
    }

    /** Waits (up to 20 s) until {@code n} forces wait on the held disk. */
    synchronized void awaitForcesHeld(int n) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (waiting < n) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError(waiting + " forces held, expected " + n);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }

    private synchronized void awaitRelease() {
      waiting++;
      notifyAll();
      try {
        while (held && passes == 0) {
          try {
            wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
        if (held) {
          passes--;
        }
      } finally {
        waiting--;
      }
    }

    FileLayer files() {
      return new HookedFiles(FileLayer.standard(), HookedFiles.NONE, force -> awaitRelease());
    }
  }
}
