package dev.larder.http;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Collections;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The settings of an HTTP endpoint. Each is declared here once, with its default:
 *
 * <table>
 *   <caption>settings</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code bind}</td><td>127.0.0.1</td><td>the address to listen on</td></tr>
 *   <tr><td>{@code port}</td><td>{@value #DEFAULT_PORT}</td><td>the port; 0 picks a free
 *       one</td></tr>
 *   <tr><td>{@code password}</td><td>none</td><td>if set, every request must carry it, as HTTP
 *       Basic (any user name) or as {@code Authorization: Bearer <password>}; required when
 *       {@code bind} is not a loopback address</td></tr>
 *   <tr><td>{@code maxBodyBytes}</td><td>{@value #DEFAULT_MAX_BODY_BYTES}</td><td>the largest
 *       request body; a larger one is refused with 413</td></tr>
 *   <tr><td>{@code idleTimeout}</td><td>60 s</td><td>a connection with no traffic for this
 *       long is closed</td></tr>
 *   <tr><td>{@code hostNames}</td><td>none</td><td>names, besides the listening address and
 *       {@code localhost} on loopback, under which requests that change data (PUT, DELETE, the
 *       console's actions) are accepted in their {@code Host} header, e.g. the machine's DNS
 *       name when the endpoint listens beyond loopback; every other name is refused, which
 *       defeats DNS rebinding</td></tr>
 * </table>
 *
 * @param bind the address to listen on
 * @param port the port, 0 for any free one
 * @param password the password every request must carry, if any
 * @param maxBodyBytes the largest request body accepted, in bytes
 * @param idleTimeout how long an idle connection stays open
 * @param hostNames further host names accepted for requests that change data, lower case
 */
public record LarderHttpConfig(
    InetAddress bind,
    int port,
    Optional<String> password,
    int maxBodyBytes,
    Duration idleTimeout,
    Set<String> hostNames) {

  /** The default port: Redis's 6379 with an 8 for HTTP. */
  public static final int DEFAULT_PORT = 8379;

  /** The default largest request body: 1 MiB. */
  public static final int DEFAULT_MAX_BODY_BYTES = 1 << 20;

  /** The default idle timeout. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

  /**
   * Checks the settings.
   *
   * @throws IllegalArgumentException if a value is out of range, the password is empty, or {@code
   *     bind} is not a loopback address and there is no password
   */
  public LarderHttpConfig {
    Objects.requireNonNull(bind, "bind");
    Objects.requireNonNull(password, "password");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    hostNames = hostNames(hostNames);
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("port " + port + " is not in 0..65535");
    }
    if (maxBodyBytes < 0) {
      throw new IllegalArgumentException("maxBodyBytes " + maxBodyBytes + " is negative");
    }
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException("idleTimeout " + idleTimeout + " is not positive");
    }
    if (password.isPresent() && password.get().isEmpty()) {
      throw new IllegalArgumentException("the password must not be empty");
    }
    if (!bind.isLoopbackAddress() && password.isEmpty()) {
      throw new IllegalArgumentException(
          "listening on "
              + bind.getHostAddress()
              + ", which is not a loopback address, requires a password");
    }
  }

  /** Returns the defaults: 127.0.0.1, port {@value #DEFAULT_PORT}, no password. */
  public static LarderHttpConfig defaults() {
    return new LarderHttpConfig(
        InetAddress.getLoopbackAddress(),
        DEFAULT_PORT,
        Optional.empty(),
        DEFAULT_MAX_BODY_BYTES,
        DEFAULT_IDLE_TIMEOUT,
        Set.of());
  }

  private static Set<String> hostNames(Set<String> names) {
    Objects.requireNonNull(names, "hostNames");
    Set<String> lower = new TreeSet<>();
    for (String name : names) {
      if (name == null || name.isBlank() || name.contains(":") || name.contains("/")) {
        throw new IllegalArgumentException("hostNames: '" + name + "' is not a host name");
      }
      lower.add(name.strip().toLowerCase(Locale.ROOT));
    }
    return Collections.unmodifiableSet(lower);
  }

  /**
   * Returns a copy with that address.
   *
   * @param address the address to listen on
   */
  public LarderHttpConfig withBind(InetAddress address) {
    return new LarderHttpConfig(address, port, password, maxBodyBytes, idleTimeout, hostNames);
  }

  /**
   * Returns a copy with that port.
   *
   * @param newPort the port, 0 for any free one
   */
  public LarderHttpConfig withPort(int newPort) {
    return new LarderHttpConfig(bind, newPort, password, maxBodyBytes, idleTimeout, hostNames);
  }

  /**
   * Returns a copy with that password.
   *
   * @param newPassword the password, or null for none
   */
  public LarderHttpConfig withPassword(String newPassword) {
    return new LarderHttpConfig(
        bind, port, Optional.ofNullable(newPassword), maxBodyBytes, idleTimeout, hostNames);
  }

  /**
   * Returns a copy with that limit.
   *
   * @param bytes the largest request body
   */
  public LarderHttpConfig withMaxBodyBytes(int bytes) {
    return new LarderHttpConfig(bind, port, password, bytes, idleTimeout, hostNames);
  }

  /**
   * Returns a copy with that timeout.
   *
   * @param timeout how long an idle connection stays open
   */
  public LarderHttpConfig withIdleTimeout(Duration timeout) {
    return new LarderHttpConfig(bind, port, password, maxBodyBytes, timeout, hostNames);
  }

  /**
   * Returns a copy with those names.
   *
   * @param names further host names accepted for requests that change data
   * @throws IllegalArgumentException if a name is blank or holds a port or a path
   */
  public LarderHttpConfig withHostNames(Set<String> names) {
    return new LarderHttpConfig(bind, port, password, maxBodyBytes, idleTimeout, names);
  }

  @Override
  public String toString() {
    // Never print the password.
    return "LarderHttpConfig[bind="
        + bind.getHostAddress()
        + ", port="
        + port
        + ", password="
        + (password.isPresent() ? "set" : "none")
        + ", maxBodyBytes="
        + maxBodyBytes
        + ", idleTimeout="
        + idleTimeout
        + ", hostNames="
        + hostNames
        + "]";
  }
}
