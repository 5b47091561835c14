package dev.larder.http.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Optional;

/**
 * Checks a request's {@code Authorization} header against the configured password, in either of two
 * forms: HTTP Basic with any user name (what a browser sends after its login prompt), or {@code
 * Bearer <password>} (what scrapers and scripts send). Like the RESP server's {@code AUTH
 * <password>}, there is one shared secret and no user.
 *
 * <p>Implementation notes: the password and the candidate are both hashed with SHA-256 and the
 * digests compared with {@link MessageDigest#isEqual}, which takes the same time for any two
 * digests of equal length, so neither the password's length nor how much of it a guess got right
 * leaks through timing. Thread-safe: immutable.
 */
final class Authenticator {

  private final byte[] passwordDigest;

  /**
   * @param password the password, or empty for none (every request passes)
   */
  Authenticator(Optional<String> password) {
    this.passwordDigest = password.map(Authenticator::digest).orElse(null);
  }

  boolean required() {
    return passwordDigest != null;
  }

  /**
   * Returns whether the request may proceed.
   *
   * @param authorization the {@code Authorization} header, or null
   */
  boolean accepts(String authorization) {
    if (passwordDigest == null) {
      return true;
    }
    String candidate = candidate(authorization);
    return candidate != null && MessageDigest.isEqual(passwordDigest, digest(candidate));
  }

  private static String candidate(String authorization) {
    if (authorization == null) {
      return null;
    }
    String header = authorization.strip();
    if (startsWithIgnoreCase(header, "Bearer ")) {
      return header.substring("Bearer ".length()).strip();
    }
    if (startsWithIgnoreCase(header, "Basic ")) {
      return basicPassword(header.substring("Basic ".length()).strip());
    }
    return null;
  }

  private static String basicPassword(String encoded) {
    try {
      String userAndPassword =
          new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
      int colon = userAndPassword.indexOf(':');
      return colon < 0 ? null : userAndPassword.substring(colon + 1);
    } catch (IllegalArgumentException e) {
      return null; // not Base64: not a credential
    }
  }

  private static boolean startsWithIgnoreCase(String s, String prefix) {
    return s.regionMatches(true, 0, prefix, 0, prefix.length());
  }

  private static byte[] digest(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
