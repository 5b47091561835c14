package dev.larder.bench.server;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Loads n keys ({@code prefix0}, {@code prefix1} ...) with values of a given size into a server
 * over one pipelined connection, in RESP (SET) or memcached text ({@code set ... noreply}), waiting
 * for every reply (RESP) or for a final {@code version} (memcached) before returning.
 */
final class KeyLoader {
  private static final int BATCH = 1000;

  private KeyLoader() {}

  static void resp(int port, String prefix, long keys, int valueBytes) throws IOException {
    byte[] value = "v".repeat(valueBytes).getBytes(StandardCharsets.US_ASCII);
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(120_000);
      OutputStream out = new BufferedOutputStream(s.getOutputStream(), 1 << 16);
      InputStream in = s.getInputStream();
      for (long start = 0; start < keys; start += BATCH) {
        long end = Math.min(keys, start + BATCH);
        for (long i = start; i < end; i++) {
          byte[] key = (prefix + i).getBytes(StandardCharsets.US_ASCII);
          out.write(
              ("*3\r\n$3\r\nSET\r\n$" + key.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
          out.write(key);
          out.write(("\r\n$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
          out.write(value);
          out.write('\r');
          out.write('\n');
        }
        out.flush();
        expect(in, "+OK\r\n".repeat((int) (end - start)));
      }
    }
  }

  static void memcache(int port, String prefix, long keys, int valueBytes) throws IOException {
    byte[] value = "v".repeat(valueBytes).getBytes(StandardCharsets.US_ASCII);
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(120_000);
      OutputStream out = new BufferedOutputStream(s.getOutputStream(), 1 << 16);
      InputStream in = s.getInputStream();
      for (long start = 0; start < keys; start += BATCH) {
        long end = Math.min(keys, start + BATCH);
        for (long i = start; i < end; i++) {
          out.write(
              ("set " + prefix + i + " 0 0 " + value.length + " noreply\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
          out.write(value);
          out.write('\r');
          out.write('\n');
        }
        out.write("mn\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        expect(in, "MN\r\n");
      }
    }
  }

  /**
   * Reads {@code used_memory} from INFO memory: Redis's allocator bytes in use, Larder's keyspace
   * bytes as the store accounts them (pages, index and policy, on or off the heap).
   */
  static long usedMemory(int port) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(120_000);
      OutputStream out = s.getOutputStream();
      out.write("*2\r\n$4\r\nINFO\r\n$6\r\nmemory\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      StringBuilder header = new StringBuilder();
      for (int b = in.read(); b != '\n'; b = in.read()) {
        if (b < 0) {
          throw new IOException("INFO: connection closed");
        }
        header.append((char) b);
      }
      if (header.charAt(0) != '$') {
        throw new IOException("INFO: unexpected reply " + header);
      }
      int length = Integer.parseInt(header.substring(1).trim());
      String info = new String(in.readNBytes(length), StandardCharsets.US_ASCII);
      for (String line : info.split("\r\n", -1)) {
        if (line.startsWith("used_memory:")) {
          return Long.parseLong(line.substring("used_memory:".length()).trim());
        }
      }
      throw new IOException("INFO memory has no used_memory");
    }
  }

  /**
   * BGREWRITEAOF, then waits until INFO persistence shows no rewrite running or scheduled (at most
   * ten minutes): Larder's checkpoint, Redis's AOF rewrite.
   */
  static void rewrite(int port) throws IOException, InterruptedException {
    command(port, "BGREWRITEAOF");
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(10);
    while (true) {
      String info = command(port, "INFO", "persistence");
      if (info.contains("aof_rewrite_in_progress:0") && info.contains("aof_rewrite_scheduled:0")) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the rewrite did not finish in 10 minutes");
      }
      Thread.sleep(100);
    }
  }

  /** Sends one command and returns its reply: a status line's text or a bulk string. */
  static String command(int port, String... args) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(120_000);
      StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
      for (String a : args) {
        sb.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
      }
      OutputStream out = s.getOutputStream();
      out.write(sb.toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      StringBuilder header = new StringBuilder();
      for (int b = in.read(); b != '\n'; b = in.read()) {
        if (b < 0) {
          throw new IOException(args[0] + ": connection closed");
        }
        header.append((char) b);
      }
      String line = header.toString().strip();
      if (line.startsWith("$")) {
        return new String(
            in.readNBytes(Integer.parseInt(line.substring(1))), StandardCharsets.US_ASCII);
      }
      if (line.startsWith("-")) {
        throw new IOException(args[0] + ": " + line);
      }
      return line.substring(1);
    }
  }

  private static void expect(InputStream in, String expected) throws IOException {
    byte[] got = in.readNBytes(expected.length());
    String text = new String(got, StandardCharsets.US_ASCII);
    if (!text.equals(expected)) {
      throw new IOException(
          "unexpected reply while loading: " + text.substring(0, Math.min(200, text.length())));
    }
  }
}
