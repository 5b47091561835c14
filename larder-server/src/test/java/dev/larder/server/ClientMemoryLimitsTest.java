package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Memory held for clients is bounded (the outside tester's abuse, scaled down): a client that
 * pipelines GETs of a large value without reading holds one reply's worth, not all of them; clients
 * half-sending large requests are disconnected, the largest first, once they hold the
 * maxmemory-clients budget; a client over its own query or output limit is disconnected with a
 * logged reason; others go on, and INFO counts it all.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientMemoryLimitsTest {
  private static final int MB = 1 << 20;

  private static LarderServer start(String... settings) throws IOException {
    Map<String, String> m =
        new HashMap<>(
            Map.of("resp-port", "0", "memcache-port", "0", "http-port", "-1", "maxmemory", "64mb"));
    for (int i = 0; i < settings.length; i += 2) {
      m.put(settings[i], settings[i + 1]);
    }
    return LarderServer.start(ServerConfig.of(m));
  }

  private static Socket connect(int port) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
    s.setSoTimeout(30_000);
    return s;
  }

  private static String bulk(byte[] b) {
    return "$" + b.length + "\r\n" + new String(b, StandardCharsets.ISO_8859_1) + "\r\n";
  }

  private static byte[] command(String... words) {
    StringBuilder sb = new StringBuilder("*").append(words.length).append("\r\n");
    for (String w : words) {
      sb.append(bulk(w.getBytes(StandardCharsets.ISO_8859_1)));
    }
    return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  /** Sends a command and reads one reply (a status, an integer, an error or a bulk string). */
  private static String call(Socket s, String... words) throws IOException {
    s.getOutputStream().write(command(words));
    return readReply(s.getInputStream());
  }

  private static String readReply(InputStream in) throws IOException {
    String line = readLine(in);
    if (line.startsWith("$") && !line.equals("$-1")) {
      byte[] body = in.readNBytes(Integer.parseInt(line.substring(1)) + 2);
      return new String(body, 0, body.length - 2, StandardCharsets.ISO_8859_1);
    }
    return line;
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        return "<closed>";
      }
      line.write(b);
    }
    String s = line.toString(StandardCharsets.ISO_8859_1);
    return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
  }

  private static long info(Socket s, String field) throws IOException {
    Matcher m = Pattern.compile("(?m)^" + field + ":(\\d+)\r?$").matcher(call(s, "INFO"));
    assertTrue(m.find(), "INFO has " + field);
    return Long.parseLong(m.group(1));
  }

  private static long directMemoryInUse() {
    return ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric().usedDirectMemory();
  }

  private static boolean closedByServer(Socket s) throws IOException {
    try {
      InputStream in = s.getInputStream();
      while (in.read() >= 0) {
        // drain what was sent before the close
      }
      return true;
    } catch (java.net.SocketException e) {
      return true;
    }
  }

  @Test
  void aClientPipeliningLargeGetsWithoutReadingHoldsAboutOneReply() throws Exception {
    byte[] value = "v".repeat(4 * MB).getBytes(StandardCharsets.ISO_8859_1);
    try (LarderServer server = start();
        Socket admin = connect(server.respPort());
        Socket greedy = connect(server.respPort())) {
      greedy.setReceiveBufferSize(64 * 1024);
      admin
          .getOutputStream()
          .write(command("SET", "big", new String(value, StandardCharsets.ISO_8859_1)));
      assertEquals("+OK", readReply(admin.getInputStream()));
      long before = directMemoryInUse();
      long hitsBefore = info(admin, "keyspace_hits");
      ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
      for (int i = 0; i < 100; i++) {
        pipeline.writeBytes(command("GET", "big"));
      }
      greedy.getOutputStream().write(pipeline.toByteArray());
      greedy.getOutputStream().flush();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (info(admin, "keyspace_hits") < hitsBefore + 1 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      // Watch for a second: a server that runs every GET of the read builds 400 MB.
      long most = 0;
      long held = 0;
      long watchUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      while (System.nanoTime() < watchUntil) {
        most = Math.max(most, directMemoryInUse() - before);
        held = Math.max(held, info(admin, "mem_clients_normal"));
      }
      assertTrue(most < 32L * MB, "replies held while the client does not read: " + most);
      assertTrue(held < 16L * MB, "counted for the client: " + held);
      assertTrue(
          info(admin, "keyspace_hits") < hitsBefore + 10,
          "the pipeline waits for the client to read");
      InputStream in = greedy.getInputStream();
      for (int i = 0; i < 100; i++) {
        assertEquals(value.length, readReply(in).length(), "reply " + i);
      }
      assertEquals("+PONG", call(greedy, "PING"));
    }
  }

  @Test
  void halfSentRequestsAreDisconnectedLargestFirstOnceTheyHoldTheBudget() throws Exception {
    try (LarderServer server = start("max-request-bytes", "16mb", "maxmemory-clients", "40mb");
        Socket admin = connect(server.respPort())) {
      long before = directMemoryInUse();
      List<Socket> senders = new ArrayList<>();
      byte[] half = "x".repeat(8 * MB).getBytes(StandardCharsets.ISO_8859_1);
      try {
        for (int i = 0; i < 12; i++) {
          Socket s = connect(server.respPort());
          senders.add(s);
          OutputStream out = s.getOutputStream();
          try {
            out.write(
                ("*3\r\n$3\r\nSET\r\n$2\r\nk" + (i % 10) + "\r\n$16000000\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(half);
            out.flush();
          } catch (java.net.SocketException disconnected) {
            // evicted while sending: what the budget is for
          }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (info(admin, "evicted_clients") < 10 && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        assertTrue(info(admin, "evicted_clients") >= 10, "at most 2 of 16 MB fit 40 MB");
        assertTrue(info(admin, "mem_clients_normal") <= 40L * MB);
        assertTrue(
            directMemoryInUse() - before < 64L * MB,
            "input is not piled in network buffers: " + (directMemoryInUse() - before));
        assertEquals("+PONG", call(admin, "PING"), "others go on");
        int closed = 0;
        for (Socket s : senders) {
          s.setSoTimeout(200);
          try {
            if (s.getInputStream().read() < 0) {
              closed++;
            }
          } catch (java.net.SocketTimeoutException stillOpen) {
            // still waiting for the rest of its SET
          } catch (java.net.SocketException reset) {
            closed++;
          }
        }
        assertTrue(closed >= 10, closed + " of 12 half-senders were disconnected");
        String value = "y".repeat(10 * MB);
        try (Socket legit = connect(server.respPort())) {
          assertEquals("+OK", call(legit, "SET", "whole", value));
          assertEquals(value.length(), call(legit, "GET", "whole").length());
        }
      } finally {
        for (Socket s : senders) {
          s.close();
        }
      }
    }
  }

  @Test
  void aReplyOfManySmallPartsOverTheOutputLimitAlsoDisconnects() throws Exception {
    try (LarderServer server =
            start(
                "max-request-bytes",
                "8mb",
                "client-query-buffer-limit",
                "8mb",
                "client-output-buffer-limit",
                "1mb");
        Socket admin = connect(server.respPort());
        Socket reader = connect(server.respPort())) {
      String[] mget = new String[250_001];
      java.util.Arrays.fill(mget, "absent");
      mget[0] = "MGET";
      reader.getOutputStream().write(command(mget));
      assertTrue(closedByServer(reader), "250,000 null replies of 5 bytes pass 1 MB");
      assertEquals(1, info(admin, "client_output_buffer_limit_disconnections"));
      assertEquals("+PONG", call(admin, "PING"));
    }
  }

  @Test
  void aClientOverItsOwnLimitsIsDisconnectedWithALoggedReason() throws Exception {
    List<String> logged = new ArrayList<>();
    Logger log = Logger.getLogger("dev.larder.server.internal.net.ClientMemory");
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            synchronized (logged) {
              logged.add(r.getMessage());
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    log.addHandler(capture);
    try (LarderServer server =
            start(
                "max-request-bytes",
                "1mb",
                "client-query-buffer-limit",
                "1mb",
                "client-output-buffer-limit",
                "1mb");
        Socket admin = connect(server.respPort())) {
      String value = "v".repeat(600 * 1024);
      assertEquals("+OK", call(admin, "SET", "k", value));
      try (Socket reader = connect(server.respPort())) {
        reader.getOutputStream().write(command("MGET", "k", "k"));
        assertTrue(closedByServer(reader), "a 1.2 MB reply passes the 1 MB output limit");
      }
      try (Socket memcache = connect(server.memcachePort())) {
        memcache.getOutputStream().write("get k k\r\n".getBytes(StandardCharsets.US_ASCII));
        assertTrue(closedByServer(memcache), "the same on the memcached port");
      }
      try (Socket queuer = connect(server.respPort())) {
        assertEquals("+OK", call(queuer, "MULTI"));
        assertEquals("+QUEUED", call(queuer, "SET", "q", value));
        queuer
            .getOutputStream()
            .write("*3\r\n$3\r\nSET\r\n$1\r\nq\r\n$600000\r\n".getBytes(StandardCharsets.US_ASCII));
        assertTrue(closedByServer(queuer), "a queue and a partial request over 1 MB");
      }
      assertEquals(2, info(admin, "client_output_buffer_limit_disconnections"));
      assertEquals(1, info(admin, "client_query_buffer_limit_disconnections"));
      assertEquals("+PONG", call(admin, "PING"));
      synchronized (logged) {
        assertTrue(
            logged.stream().anyMatch(m -> m.contains("client-output-buffer-limit")),
            String.valueOf(logged));
      }
    } finally {
      log.removeHandler(capture);
    }
  }
}
