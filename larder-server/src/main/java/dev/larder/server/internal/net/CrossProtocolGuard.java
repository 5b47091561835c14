package dev.larder.server.internal.net;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Recognizes HTTP sent to the RESP or memcached port and closes that connection before anything
 * after it runs. A web page can make a browser POST to 127.0.0.1:6379 with a body of commands;
 * without this, each line of the body would run as a command on a passwordless loopback server.
 *
 * <p>The rules are the servers' own. Redis (since 3.2.7) treats a command named {@code POST} or
 * {@code Host:} (any case) as an attack: the request line of a POST and the Host header of any
 * request. memcached 1.6 closes on an unknown command whose last word starts with {@code HTTP/}
 * (any request line). The memcached port applies both. The warning is logged at most once a minute
 * per server, as Redis does.
 *
 * <p>Thread-safe.
 */
public final class CrossProtocolGuard {
  private static final System.Logger LOG = System.getLogger(CrossProtocolGuard.class.getName());
  private final RateLimitedLog log = new RateLimitedLog(TimeUnit.MINUTES.toNanos(1));

  /**
   * Returns whether Redis treats it as HTTP.
   *
   * @param lowerCaseName a RESP command name that is in no command table, lower case
   */
  public static boolean respHttp(String lowerCaseName) {
    return lowerCaseName.equals("post") || lowerCaseName.equals("host:");
  }

  /**
   * Returns whether memcached (or Redis's rule) treats it as HTTP.
   *
   * @param tokens the words of a memcached line that names no command, at least one
   */
  public static boolean memcacheHttp(List<byte[]> tokens) {
    String first = new String(tokens.getFirst(), StandardCharsets.ISO_8859_1);
    byte[] last = tokens.getLast();
    return respHttp(first.toLowerCase(java.util.Locale.ROOT))
        || (tokens.size() > 1
            && last.length >= 5
            && last[0] == 'H'
            && last[1] == 'T'
            && last[2] == 'T'
            && last[3] == 'P'
            && last[4] == '/');
  }

  /**
   * Logs the attack (at most once a minute) and closes the connection without a reply.
   *
   * @param connection the connection that sent HTTP
   * @param port which listener: "RESP" or "memcached"
   */
  public void refuse(ClientConnection connection, String port) {
    long held = log.permit();
    if (held >= 0) {
      LOG.log(
          System.Logger.Level.WARNING,
          "Possible SECURITY ATTACK detected: HTTP (POST or a"
              + " Host: header) sent to the "
              + port
              + " port by "
              + connection.address()
              + ", likely a web page attempting a cross protocol attack on this server."
              + " Connection aborted."
              + (held > 0 ? " (" + held + " more since the last warning)" : ""));
    }
    connection.disconnect(null, null);
  }
}
