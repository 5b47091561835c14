package dev.larder.http.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.Set;

/**
 * Refuses a request that changes data (any method but GET and HEAD) unless it was addressed to this
 * server by its own name and, when the browser says where it comes from, from the console's own
 * origin. The endpoint may listen on loopback without a password, so the attacker to design against
 * is a web page in the user's own browser:
 *
 * <ul>
 *   <li>a cross-site request (a form or {@code fetch} from another origin) carries an {@code
 *       Origin} (and {@code Sec-Fetch-Site}) naming that origin: refused unless the origin is
 *       {@code http://} or {@code https://} plus this request's own {@code Host};
 *   <li>DNS rebinding (an attacker's name made to resolve to 127.0.0.1, so its page is same-origin
 *       with itself) arrives with {@code Host: attacker.example}: refused unless the host is an
 *       address literal of the interface the connection arrived on, {@code localhost} on a loopback
 *       interface, or a name the operator listed ({@link
 *       dev.larder.http.LarderHttpConfig#hostNames()}).
 * </ul>
 *
 * <p>The port in {@code Host} is not checked (an SSH tunnel or proxy may change it; rebinding is
 * defeated by the name alone). Reads are not guarded: the endpoint sends no CORS headers, so
 * another origin's page cannot read a response. Thread-safe: immutable.
 */
final class ChangeGuard {

  private final Set<String> hostNames;

  /**
   * @param hostNames further host names accepted, lower case
   */
  ChangeGuard(Set<String> hostNames) {
    this.hostNames = Set.copyOf(hostNames);
  }

  /** Returns whether requests of this method are guarded. */
  static boolean changes(String method) {
    return !method.equals("GET") && !method.equals("HEAD");
  }

  /**
   * Returns null if the request may proceed, else why it is refused.
   *
   * @param host the {@code Host} header, or null
   * @param origin the {@code Origin} header, or null
   * @param fetchSite the {@code Sec-Fetch-Site} header, or null
   * @param local the address the connection arrived on
   */
  String refusal(String host, String origin, String fetchSite, InetSocketAddress local) {
    if (host == null || host.isBlank()) {
      return "a request that changes data needs a Host header";
    }
    String name = hostName(host.strip()).toLowerCase(Locale.ROOT);
    if (!ownName(name, local.getAddress())) {
      return "Host '"
          + host
          + "' is not this server's address: requests that change data must"
          + " be addressed to it by its address (or localhost), or by a name given in the"
          + " endpoint's hostNames setting";
    }
    if (origin != null && !ownOrigin(origin.strip(), host.strip())) {
      return "Origin '"
          + origin
          + "' is not this console's: another site's page may not"
          + " change data here";
    }
    if (origin == null
        && fetchSite != null
        && (fetchSite.equalsIgnoreCase("cross-site") || fetchSite.equalsIgnoreCase("same-site"))) {
      return "a request from another site (Sec-Fetch-Site: "
          + fetchSite
          + ") may not change"
          + " data here";
    }
    return null;
  }

  private boolean ownName(String name, InetAddress local) {
    if (hostNames.contains(name)) {
      return true;
    }
    if (name.equals("localhost")) {
      return local.isLoopbackAddress();
    }
    try {
      String literal =
          name.startsWith("[") && name.endsWith("]") ? name.substring(1, name.length() - 1) : name;
      return InetAddress.ofLiteral(literal).equals(local);
    } catch (IllegalArgumentException notALiteral) {
      return false;
    }
  }

  private static boolean ownOrigin(String origin, String host) {
    return origin.equalsIgnoreCase("http://" + host) || origin.equalsIgnoreCase("https://" + host);
  }

  /** {@code name}, {@code name:port}, {@code [v6]} or {@code [v6]:port} to the name part. */
  private static String hostName(String host) {
    if (host.startsWith("[")) {
      int close = host.indexOf(']');
      return close < 0 ? host : host.substring(0, close + 1);
    }
    int colon = host.indexOf(':');
    return colon < 0 ? host : host.substring(0, colon);
  }
}
