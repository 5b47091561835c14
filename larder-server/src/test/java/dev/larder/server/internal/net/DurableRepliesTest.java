package dev.larder.server.internal.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.ServerConfig;
import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.persist.ServerLog;
import dev.larder.server.internal.resp.RespCommandTable;
import dev.larder.server.internal.resp.RespSession;
import dev.larder.wal.FileLayer;
import dev.larder.wal.LogFile;
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
import java.util.List;
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
 * both wait, and both arrive once the force completes.
 */
class DurableRepliesTest {

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void repliesWaitForTheForce(@TempDir Path dir) throws Exception {
    HeldDisk disk = new HeldDisk();
    ServerConfig config = ServerConfig.of(Map.of());
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    Keyspace keyspace = new Keyspace(config.maxMemory(), System::currentTimeMillis);
    ServerLog log = ServerLog.open(dir, "always", false, 0, keyspace, System::currentTimeMillis,
        disk);
    ServerState state = new ServerState(keyspace, config, scheduler);
    state.persistence(log);
    EventLoopGroup loops = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    RespCommandTable table = RespCommandTable.standard();
    try {
      Channel listener = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
          .childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              ch.pipeline().addLast(RespSession.handlers(state, table));
            }
          }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
      int port = ((InetSocketAddress) listener.localAddress()).getPort();
      try (Socket writer = connect(port); Socket reader = connect(port)) {
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
      } finally {
        listener.close().sync();
      }
    } finally {
      disk.hold(false); // a failed assertion must not leave the log's close waiting on the disk
      loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
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
   * Reads up to {@code n} bytes: what arrives within 300 ms of the last byte while the disk is
   * held (nothing, if the server waits as it must), all n once it answers.
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

  /** The real file system, except that a force waits while the disk is held. */
  static final class HeldDisk implements FileLayer {
    static volatile boolean held;
    private final FileLayer real = FileLayer.standard();

    synchronized void hold(boolean on) {
      held = on;
      notifyAll();
    }

    private synchronized void awaitRelease() {
      while (held) {
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }

    @Override
    public LogFile open(Path file) throws IOException {
      LogFile f = real.open(file);
      return new LogFile() {
        @Override
        public void write(long position, byte[] bytes, int offset, int length)
            throws IOException {
          f.write(position, bytes, offset, length);
        }

        @Override
        public void force() throws IOException {
          awaitRelease();
          f.force();
        }

        @Override
        public long size() throws IOException {
          return f.size();
        }

        @Override
        public void truncate(long length) throws IOException {
          f.truncate(length);
        }

        @Override
        public int read(long position, byte[] target, int offset, int length)
            throws IOException {
          return f.read(position, target, offset, length);
        }

        @Override
        public void close() throws IOException {
          f.close();
        }
      };
    }

    @Override
    public List<String> list(Path directory) throws IOException {
      return real.list(directory);
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
      real.rename(from, to);
    }

    @Override
    public void delete(Path file) throws IOException {
      real.delete(file);
    }

    @Override
    public AutoCloseable lock(Path directory) throws IOException {
      return real.lock(directory);
    }
  }
}
