package dev.larder.server.internal.resp;

import dev.larder.server.internal.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Test fixture: one {@link TestServer} with three RESP connections on it, two that block or
 * subscribe ({@link #a}, {@link #b}) and one that writes and asks ({@link #writer}), and what the
 * tests of blocking commands, keyspace events and CLIENT UNBLOCK read from them. The connections
 * are embedded channels through the real decoder and handler; a reply a blocked connection gets
 * later is read with {@link #pending}.
 *
 * <p>Not thread-safe: one test's thread uses it, as it uses the connections.
 */
final class RespClients implements AutoCloseable {
  final TestServer server;
  final TestServer.Connection a;
  final TestServer.Connection b;
  final TestServer.Connection writer;

  /** A server with default settings. */
  RespClients() {
    this(Map.of());
  }

  /**
   * @param settings the server's settings, e.g. {@code notify-keyspace-events}
   */
  RespClients(Map<String, String> settings) {
    server = new TestServer(settings);
    a = server.resp();
    b = server.resp();
    writer = server.resp();
  }

  /** Returns the replies {@code c} has received since it last looked ("" if none). */
  static String pending(TestServer.Connection c) {
    return c.raw(new byte[0]);
  }

  /** Returns the client id CLIENT ID gives {@code c}. */
  static String clientId(TestServer.Connection c) {
    return c.cmd("CLIENT", "ID").substring(1).strip();
  }

  /** Returns INFO's {@code blocked_clients} count, asked through {@link #writer}. */
  String blockedClients() {
    String info = writer.cmd("INFO", "clients");
    int at = info.indexOf("blocked_clients:");
    return info.substring(at + 16, info.indexOf('\r', at));
  }

  /**
   * Returns the (channel, message) pairs of the pmessages in a RESP2 pattern subscriber's output,
   * each as {@code "channel message"}, in order; other replies are skipped.
   */
  static List<String> keyspaceEvents(String out) {
    List<String> found = new ArrayList<>();
    String[] lines = out.split("\r\n", -1);
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].equals("pmessage")) {
        found.add(lines[i + 4] + " " + lines[i + 6]);
      }
    }
    return found;
  }

  @Override
  public void close() {
    server.close();
  }
}
