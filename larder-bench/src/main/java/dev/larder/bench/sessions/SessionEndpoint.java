package dev.larder.bench.sessions;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The GemStone sessions experiment's counter page over the JDK's HTTP server, on 127.0.0.1: {@code
 * GET /counter} touches one session (a random one of {@code sessions}, as the experiment's Seaside
 * counter made a new session per hit; or {@code ?session=N}) in one transaction of its {@link
 * SessionStore} and answers a small HTML page with the count once the commit is acknowledged.
 *
 * <p>Requests run on a fixed pool of platform threads, enough for every concurrent client of the
 * bench, so that no request waits for a thread and the figures measure the store.
 *
 * <p>{@link #main} runs it standalone, so that siege itself can drive it (see the README).
 */
public final class SessionEndpoint implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService threads;
  private final SessionStore store;
  private final long sessions;

  /**
   * @param store where sessions live; closed with the endpoint
   * @param sessions how many sessions a request without {@code ?session=} picks from
   * @param threads request threads
   * @throws IOException if the server cannot bind
   */
  SessionEndpoint(SessionStore store, long sessions, int threads) throws IOException {
    this(store, sessions, threads, 0);
  }

  private SessionEndpoint(SessionStore store, long sessions, int threads, int port)
      throws IOException {
    this.store = store;
    this.sessions = sessions;
    this.threads = Executors.newFixedThreadPool(threads);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
    server.setExecutor(this.threads);
    server.createContext("/counter", this::counter);
    server.start();
  }

  /** Returns the address of the counter page. */
  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/counter";
  }

  private void counter(HttpExchange exchange) throws IOException {
    try (exchange) {
      long session = session(exchange.getRequestURI().getRawQuery());
      byte[] body;
      int status;
      try {
        long count = store.touch(session);
        body =
            ("<html><body><h1>"
                    + count
                    + "</h1><a href=\"?session="
                    + session
                    + "\">++</a></body></html>\n")
                .getBytes(StandardCharsets.UTF_8);
        status = 200;
      } catch (RuntimeException e) {
        body = ("commit failed: " + e + "\n").getBytes(StandardCharsets.UTF_8);
        status = 500;
      }
      exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private long session(String query) {
    if (query != null && query.startsWith("session=")) {
      try {
        return Long.parseLong(query.substring("session=".length()));
      } catch (NumberFormatException e) {
        // Not a number: treat the request as a new visitor.
      }
    }
    return ThreadLocalRandom.current().nextLong(sessions);
  }

  /** Stops answering, then closes the store. */
  @Override
  public void close() {
    server.stop(0);
    threads.shutdown();
    try {
      threads.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      store.close();
    }
  }

  /**
   * Runs the endpoint until the process is stopped, for an external driver such as siege.
   * Arguments: a store kind ({@code larder-always}, {@code larder-off}, {@code
   * larder-session-always}, {@code larder-session-off}, {@code redis-always}, {@code redis-off}),
   * then the port (default 8080), then the log directory (default: a new temporary directory).
   *
   * @param args the arguments
   * @throws Exception if it cannot start
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println(
          "usage: SessionEndpoint larder-always|larder-off|larder-session-always|"
              + "larder-session-off|redis-always|redis-off [port] [directory]");
      System.exit(2);
    }
    int port = args.length > 1 ? Integer.parseInt(args[1]) : 8080;
    Path directory =
        args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("larder-sessions-");
    Stores.Opened opened = Stores.open(args[0], directory, 256);
    SessionEndpoint endpoint = new SessionEndpoint(opened.store(), 1000, 256, port);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  endpoint.close();
                  opened.close();
                }));
    System.out.println(
        "serving " + endpoint.url() + " (" + args[0] + ", " + directory + "); stop with Ctrl-C");
    Thread.currentThread().join();
  }
}
