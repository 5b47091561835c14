package dev.larder.server.internal.memcache;

import dev.larder.server.ServerConfig;
import dev.larder.server.ServerSetting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

/**
 * The memcached users: memcached 1.6's text-protocol authentication ({@code memcached -Y file}),
 * the documented equivalent of SASL for the text and meta protocols (SASL exists only in the binary
 * protocol, which Larder does not speak).
 *
 * <p>The file has memcached's format: one {@code user:password} per line (the first colon splits;
 * blank lines and lines starting with {@code #} are skipped). A connection must first send a {@code
 * set} whose data is {@code user password} (the key, flags and exptime are ignored, and so are
 * words after the second): {@code STORED} on success, {@code CLIENT_ERROR authentication failure}
 * on a wrong pair, {@code CLIENT_ERROR bad authentication token format} if the data is not two
 * words. Every other command before that gets {@code CLIENT_ERROR unauthenticated}, as memcached
 * answers.
 *
 * <p>Immutable and thread-safe.
 */
public final class MemcacheAuth {
  private final List<byte[][]> users;

  private MemcacheAuth(List<byte[][]> users) {
    this.users = users;
  }

  /**
   * Returns the users of its {@code memcache-auth-file}, or null if it sets none.
   *
   * @param config the configuration
   * @throws IllegalArgumentException if the file has a line without a colon, or no users
   * @throws UncheckedIOException if it cannot be read
   */
  public static MemcacheAuth of(ServerConfig config) {
    String file = config.get(ServerSetting.MEMCACHE_AUTH_FILE);
    if (file.isEmpty()) {
      return null;
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("memcache-auth-file " + file + ": " + e.getMessage(), e);
    }
    return parse(lines, "memcache-auth-file " + file);
  }

  /**
   * Returns their users.
   *
   * @param lines the lines of an auth file
   * @param source what to call them in errors
   * @throws IllegalArgumentException if a line has no colon, or there are no users
   */
  public static MemcacheAuth parse(List<String> lines, String source) {
    List<byte[][]> users = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.indexOf(':');
      if (colon <= 0 || colon == line.length() - 1 || line.chars().anyMatch(ch -> ch <= ' ')) {
        throw new IllegalArgumentException(
            source + " line " + (i + 1) + ": expected 'user:password' (no blanks, neither empty)");
      }
      users.add(
          new byte[][] {
            line.substring(0, colon).getBytes(StandardCharsets.UTF_8),
            line.substring(colon + 1).getBytes(StandardCharsets.UTF_8)
          });
    }
    if (users.isEmpty()) {
      throw new IllegalArgumentException(source + " has no users");
    }
    return new MemcacheAuth(List.copyOf(users));
  }

  /**
   * Returns whether the pair is one of the file's.
   *
   * @param user a user name
   * @param password a password attempt
   */
  @SuppressWarnings("ShortCircuitBoolean") // both comparisons run for every user (constant time)
  public boolean check(byte[] user, byte[] password) {
    boolean ok = false;
    for (byte[][] u : users) {
      // Both compared in constant time, for every user, with a non-short-circuit &: timing tells
      // nothing of the attempt.
      ok |= MessageDigest.isEqual(u[0], user) & MessageDigest.isEqual(u[1], password);
    }
    return ok;
  }
}
