package dev.larder.server.internal.memcache;

import java.util.List;

/**
 * A meta command's flags, read as memcached 1.6.18 reads them before it runs the command: each flag
 * a byte and an optional token, no flag twice, the tokens of {@code N T R} signed 32-bit numbers,
 * of {@code C J D} unsigned 64-bit, of {@code F} unsigned 32-bit, {@code M} exactly one byte, and
 * {@code b} decoding the key from base64 in place. The first error found by a check that stops the
 * reading (an unknown or repeated flag) or the last one found by the others is {@link #error}, in
 * memcached's words.
 *
 * <p>Not thread-safe; one per request.
 */
final class MetaFlags {
  /** The flags memcached 1.6.18 knows; any other byte answers {@code CLIENT_ERROR invalid flag}. */
  private static final String KNOWN = "bNTRlOPLkstcfvhuqFCMJDI";

  /** The longest opaque token ({@code O} included), as memcached. */
  static final int MAX_OPAQUE = 32;

  /** A meta line may have at most this many words, the command included. */
  static final int MAX_WORDS = 19;

  final List<byte[]> tokens;
  final int from;
  byte[] key;
  boolean keyBinary;
  String error;
  boolean vivify;
  boolean noUpdate;
  boolean value;
  boolean setStale;
  boolean noReply;
  boolean hasCas;
  boolean newTtl;
  long exptime;
  long vivifyTtl;
  long recache;
  long clientFlags;
  long cas;
  long delta = 1;
  long initial;
  char mode;

  private MetaFlags(List<byte[]> tokens, int from) {
    this.tokens = tokens;
    this.from = from;
    this.key = tokens.get(1);
  }

  /**
   * Reads the flags from token {@code from} on (the key is token 1).
   *
   * @param tokens the command line's words; at least two
   * @param from the first flag's index
   */
  static MetaFlags parse(List<byte[]> tokens, int from) {
    MetaFlags f = new MetaFlags(tokens, from);
    f.read();
    return f;
  }

  /** Returns whether the line carries the flag. */
  boolean has(char flag) {
    for (int i = from; i < tokens.size(); i++) {
      if (tokens.get(i)[0] == flag) {
        return true;
      }
    }
    return false;
  }

  /** Returns the first opaque token longer than memcached takes, else null. */
  boolean opaqueTooLong() {
    for (int i = from; i < tokens.size(); i++) {
      byte[] t = tokens.get(i);
      if (t[0] == 'O' && t.length > MAX_OPAQUE) {
        return true;
      }
    }
    return false;
  }

  private void read() {
    boolean[] seen = new boolean[127];
    boolean failed = false;
    String message = "CLIENT_ERROR bad command line format";
    for (int i = from; i < tokens.size(); i++) {
      byte[] t = tokens.get(i);
      int o = t[0] & 0xFF;
      if (o >= 127 || seen[o]) {
        error = "CLIENT_ERROR duplicate flag";
        return;
      }
      seen[o] = true;
      if (KNOWN.indexOf(o) < 0) {
        error = "CLIENT_ERROR invalid flag";
        return;
      }
      String problem = flag((char) o, t);
      if (problem != null) {
        failed = true;
        if (!problem.isEmpty()) {
          message = problem;
        }
      }
    }
    if (failed) {
      error = message;
    }
  }

  /** Applies one flag; returns null, an error message, or "" for an error without its own words. */
  private String flag(char o, byte[] t) {
    String badToken = "CLIENT_ERROR bad token in command line format";
    switch (o) {
      case 'b' -> {
        keyBinary = true;
        byte[] decoded = MetaBase64.decode(key);
        key = decoded == null ? new byte[0] : decoded;
        return decoded == null ? "CLIENT_ERROR error decoding key" : null;
      }
      case 'N' -> {
        vivify = true;
        vivifyTtl = CNumbers.int32(t, 1);
        return vivifyTtl == CNumbers.INVALID ? badToken : null;
      }
      case 'T' -> {
        exptime = CNumbers.int32(t, 1);
        newTtl = exptime != CNumbers.INVALID;
        return newTtl ? null : badToken;
      }
      case 'R' -> {
        recache = CNumbers.int32(t, 1);
        return recache == CNumbers.INVALID ? badToken : null;
      }
      case 'v' -> value = true;
      case 'u' -> noUpdate = true;
      case 'q' -> noReply = true;
      case 'I' -> setStale = true;
      case 'F' -> {
        clientFlags = CNumbers.uint32(t, 1);
        return clientFlags == CNumbers.INVALID ? "" : null;
      }
      case 'C' -> {
        Long c = CNumbers.uint64(t, 1);
        hasCas = c != null;
        cas = c == null ? 0 : c;
        return c == null ? badToken : null;
      }
      case 'M' -> {
        if (t.length != 2) {
          return "CLIENT_ERROR incorrect length for M token";
        }
        mode = (char) (t[1] & 0xFF);
      }
      case 'J' -> {
        Long j = CNumbers.uint64(t, 1);
        initial = j == null ? 0 : j;
        return j == null ? "CLIENT_ERROR invalid numeric initial value" : null;
      }
      case 'D' -> {
        Long d = CNumbers.uint64(t, 1);
        delta = d == null ? delta : d;
        return d == null ? "CLIENT_ERROR invalid numeric delta value" : null;
      }
      default -> {
        // l O P L k s t c f h: no token to read here; the commands look at them when replying
      }
    }
    return null;
  }
}
