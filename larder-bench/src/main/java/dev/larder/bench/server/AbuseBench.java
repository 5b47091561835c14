package dev.larder.bench.server;

import dev.larder.bench.harness.LoopbackChild;
import dev.larder.bench.scenario.RepositoryRoot;
import dev.larder.bench.scenario.Row;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server-abuse scenario's trial (see {@code ServerAbuseScenario}): starts {@code ./larder
 * serve} as a user would (the launcher sets the JVM's caps from the settings) and abuses it the way
 * an outside tester did, measuring the server process's resident memory in each phase.
 *
 * <ol>
 *   <li>idle: just started;
 *   <li>half-sent sets: n connections each send a SET of a large value, half of it, and wait;
 *   <li>pipelined gets: one client sends GETs of a large value without reading any reply;
 *   <li>after: those clients gone, 4,000 small keys written, 5 s later;
 *   <li>quiet: 35 s later, once the server's periodic collection has run.
 * </ol>
 *
 * Each phase's row gives the most resident memory sampled (every 20 ms) and the process's
 * high-water mark (VmHWM) so far, the bound the server states for its settings, the connections the
 * server closed, and its INFO counters.
 */
public final class AbuseBench {
  private static final int SAMPLE_MILLIS = 20;

  /** Longer than the server's periodic collection interval (15 s), twice. */
  private static final int QUIET_SECONDS = 35;

  private static final Pattern BOUND = Pattern.compile("resident memory up to about (\\d+) MiB");
  private static final Pattern HEAP = Pattern.compile("heap cap (\\d+) MiB");
  private final long maxMemory;
  private final int connections;
  private final long setBytes;
  private final int gets;
  private final long getBytes;
  private final long holdMillis;
  private final Consumer<String> progress;

  /**
   * @param maxMemory the server's maxmemory
   * @param connections connections half-sending a SET
   * @param setBytes the length each SET announces (half of it is sent)
   * @param gets GETs pipelined without reading
   * @param getBytes the value those GETs read
   * @param holdMillis how long each abuse is held while memory is sampled
   * @param progress progress lines
   */
  public AbuseBench(
      long maxMemory,
      int connections,
      long setBytes,
      int gets,
      long getBytes,
      long holdMillis,
      Consumer<String> progress) {
    this.maxMemory = maxMemory;
    this.connections = connections;
    this.setBytes = setBytes;
    this.gets = gets;
    this.getBytes = getBytes;
    this.holdMillis = holdMillis;
    this.progress = progress;
  }

  /** Returns one row per phase. */
  public List<Row> run() throws Exception {
    Path launcher = RepositoryRoot.get().resolve("larder");
    if (!Files.isExecutable(launcher)) {
      return List.of(Row.unavailable("Larder", "no ./larder launcher at " + launcher));
    }
    int port = LoopbackChild.freePort();
    Path log = Files.createTempFile("larder-serve-", ".log");
    Process server =
        new ProcessBuilder(
                launcher.toString(),
                "serve",
                "--port",
                Integer.toString(port),
                "--memcache-port",
                "-1",
                "--http-port",
                "-1",
                "--maxmemory",
                Long.toString(maxMemory),
                "--set",
                "idle-timeout-seconds=0")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      LoopbackChild.awaitPort(server, port, "./larder serve (output in " + log + ")");
      String banner = Files.readString(log);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!BOUND.matcher(banner).find() && System.nanoTime() < deadline) {
        // The bound is printed just after the ports are bound.
        Thread.sleep(20);
        banner = Files.readString(log);
      }
      long bound = mib(BOUND, banner);
      long heapCap = mib(HEAP, banner);
      List<Row> rows = new ArrayList<>();
      Probe probe = new Probe(server.pid(), port);
      rows.add(row(probe, "idle", bound, heapCap, 0, 0, sample(probe, 500)));
      progress.accept("half-sent SETs on " + connections + " connections");
      rows.add(halfSentSets(probe, bound, heapCap));
      progress.accept(gets + " pipelined GETs, not read");
      rows.add(pipelinedGets(probe, bound, heapCap));
      progress.accept("after the load");
      try (Socket s = probe.connect()) {
        for (int i = 0; i < 4_000; i++) {
          Resp.send(s, "SET", "small:" + i, "v".repeat(100));
          Resp.reply(s.getInputStream());
        }
      }
      rows.add(row(probe, "after", bound, heapCap, 0, 0, sample(probe, 5_000)));
      progress.accept("quiet for " + QUIET_SECONDS + " s");
      Thread.sleep(TimeUnit.SECONDS.toMillis(QUIET_SECONDS));
      rows.add(
          row(
              probe,
              "quiet " + QUIET_SECONDS + " s later",
              bound,
              heapCap,
              0,
              0,
              sample(probe, 1_000)));
      return rows;
    } finally {
      LoopbackChild.stop(server);
      Files.deleteIfExists(log);
    }
  }

  private Row halfSentSets(Probe probe, long bound, long heapCap) throws Exception {
    byte[] chunk = new byte[1 << 20];
    java.util.Arrays.fill(chunk, (byte) 'x');
    List<Socket> open = new ArrayList<>();
    long peak = 0;
    try {
      for (int i = 0; i < connections; i++) {
        Socket s = probe.connect();
        open.add(s);
        try {
          OutputStream out = s.getOutputStream();
          out.write(
              ("*3\r\n$3\r\nSET\r\n$"
                      + ("big:" + i).length()
                      + "\r\nbig:"
                      + i
                      + "\r\n$"
                      + setBytes
                      + "\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
          for (long sent = 0; sent < setBytes / 2; sent += chunk.length) {
            out.write(chunk, 0, (int) Math.min(chunk.length, setBytes / 2 - sent));
          }
          out.flush();
        } catch (SocketException closedByServer) {
          // counted below
        }
        peak = Math.max(peak, probe.resident());
      }
      peak = Math.max(peak, sample(probe, holdMillis));
      boolean bystander = probe.ping();
      int closed = countClosed(open);
      return row(probe, "half-sent SETs", bound, heapCap, connections, closed, peak)
          .put("bystanderServed", bystander);
    } finally {
      for (Socket s : open) {
        s.close();
      }
    }
  }

  private Row pipelinedGets(Probe probe, long bound, long heapCap) throws Exception {
    try (Socket writer = probe.connect()) {
      Resp.send(writer, "SET", "large", "v".repeat((int) getBytes));
      Resp.reply(writer.getInputStream());
    }
    try (Socket greedy = probe.connect()) {
      greedy.setReceiveBufferSize(64 * 1024);
      ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
      for (int i = 0; i < gets; i++) {
        pipeline.writeBytes(Resp.command("GET", "large"));
      }
      greedy.getOutputStream().write(pipeline.toByteArray());
      greedy.getOutputStream().flush();
      long peak = sample(probe, holdMillis);
      boolean bystander = probe.ping();
      int answered = 0;
      try {
        InputStream in = greedy.getInputStream();
        for (; answered < gets; answered++) {
          if (Resp.reply(in) == null) {
            break;
          }
        }
      } catch (SocketException closedByServer) {
        // counted as not answered
      }
      peak = Math.max(peak, probe.resident());
      return row(probe, "pipelined GETs", bound, heapCap, 1, answered == gets ? 0 : 1, peak)
          .put("bystanderServed", bystander)
          .put("repliesRead", answered);
    }
  }

  private Row row(
      Probe probe,
      String phase,
      long bound,
      long heapCap,
      int abusers,
      int closed,
      long residentMost)
      throws IOException {
    String info = probe.info();
    return Row.of("Larder")
        .put("phase", phase)
        .put("maxmemory", maxMemory)
        .put("residentMostBytes", residentMost)
        .put("residentPeakBytes", probe.highWater())
        .put("statedBoundBytes", bound << 20)
        .put("heapCapBytes", heapCap << 20)
        .put("abusiveConnections", abusers)
        .put("disconnected", closed)
        .put("evictedClients", field(info, "evicted_clients"))
        .put("queryLimitDisconnections", field(info, "client_query_buffer_limit_disconnections"))
        .put("outputLimitDisconnections", field(info, "client_output_buffer_limit_disconnections"))
        .put("memClientsPeak", field(info, "mem_clients_peak"))
        .put("usedMemoryRss", field(info, "used_memory_rss"));
  }

  /** Samples resident memory for a while; returns the most seen. */
  private static long sample(Probe probe, long millis) throws IOException, InterruptedException {
    long most = 0;
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    do {
      most = Math.max(most, probe.resident());
      Thread.sleep(SAMPLE_MILLIS);
    } while (System.nanoTime() < until);
    return most;
  }

  private static int countClosed(List<Socket> sockets) throws IOException {
    int closed = 0;
    for (Socket s : sockets) {
      s.setSoTimeout(200);
      try {
        if (s.getInputStream().read() < 0) {
          closed++;
        }
      } catch (SocketTimeoutException open) {
        // still waiting for the rest of its request
      } catch (SocketException reset) {
        closed++;
      }
    }
    return closed;
  }

  private static long mib(Pattern p, String text) {
    Matcher m = p.matcher(text);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  private static long field(String info, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + ":(\\d+)").matcher(info);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /** The server process and a way to talk to it. */
  private record Probe(long pid, int port) {
    Socket connect() throws IOException {
      Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
      s.setSoTimeout(60_000);
      return s;
    }

    long resident() throws IOException {
      return status("VmRSS:");
    }

    long highWater() throws IOException {
      return status("VmHWM:");
    }

    private long status(String field) throws IOException {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
      throw new IOException("no " + field + " for process " + pid);
    }

    String info() throws IOException {
      try (Socket s = connect()) {
        Resp.send(s, "INFO");
        return Resp.reply(s.getInputStream());
      }
    }

    boolean ping() {
      try (Socket s = connect()) {
        s.setSoTimeout(10_000);
        Resp.send(s, "PING");
        return "+PONG".equals(Resp.reply(s.getInputStream()));
      } catch (IOException e) {
        return false;
      }
    }
  }

  /** Just enough RESP for the abuse. */
  private static final class Resp {
    static byte[] command(String... words) {
      StringBuilder sb = new StringBuilder("*").append(words.length).append("\r\n");
      for (String w : words) {
        sb.append('$').append(w.length()).append("\r\n").append(w).append("\r\n");
      }
      return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    static void send(Socket s, String... words) throws IOException {
      s.getOutputStream().write(command(words));
      s.getOutputStream().flush();
    }

    /** Returns a status or error line, or a bulk string's text; null at end of stream. */
    static String reply(InputStream in) throws IOException {
      String line = line(in);
      if (line == null || !line.startsWith("$") || line.equals("$-1")) {
        return line;
      }
      byte[] body = in.readNBytes(Integer.parseInt(line.substring(1)) + 2);
      return new String(body, 0, Math.max(0, body.length - 2), StandardCharsets.ISO_8859_1);
    }

    private static String line(InputStream in) throws IOException {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      int c;
      while ((c = in.read()) != '\n') {
        if (c < 0) {
          return null;
        }
        if (c != '\r') {
          b.write(c);
        }
      }
      return b.toString(StandardCharsets.ISO_8859_1);
    }
  }
}
