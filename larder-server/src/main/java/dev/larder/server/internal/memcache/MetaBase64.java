package dev.larder.server.internal.memcache;

import java.io.ByteArrayOutputStream;
import java.util.Base64;

/**
 * Base64 keys of the meta protocol's {@code b} flag, decoded as memcached 1.6 decodes them: bytes
 * outside the alphabet are skipped, the count of the others must be a positive multiple of four,
 * and decoding stops after the first group that holds padding. Encoding is standard base64 with
 * padding. Stateless.
 */
final class MetaBase64 {
  private static final byte[] VALUES = new byte[256];

  static {
    java.util.Arrays.fill(VALUES, (byte) -1);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < alphabet.length(); i++) {
      VALUES[alphabet.charAt(i)] = (byte) i;
    }
    VALUES['='] = 0;
  }

  private MetaBase64() {}

  /** Returns the decoded bytes, or null where memcached fails to decode (it answers an error). */
  static byte[] decode(byte[] src) {
    int count = 0;
    for (byte b : src) {
      if (VALUES[b & 0xFF] >= 0) {
        count++;
      }
    }
    if (count == 0 || count % 4 != 0) {
      return null;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(count / 4 * 3);
    int[] block = new int[4];
    int n = 0;
    int pad = 0;
    for (byte b : src) {
      int v = VALUES[b & 0xFF];
      if (v < 0) {
        continue;
      }
      if (b == '=') {
        pad++;
      }
      block[n++] = v;
      if (n == 4) {
        int keep = 3 - pad;
        if (pad > 2) {
          return null;
        }
        int[] bytes = {
          block[0] << 2 | block[1] >> 4,
          (block[1] << 4 | block[2] >> 2) & 0xFF,
          (block[2] << 6 | block[3]) & 0xFF
        };
        for (int i = 0; i < keep; i++) {
          out.write(bytes[i]);
        }
        n = 0;
        if (pad > 0) {
          break;
        }
      }
    }
    byte[] decoded = out.toByteArray();
    return decoded.length == 0 ? null : decoded;
  }

  static String encode(byte[] key) {
    return Base64.getEncoder().encodeToString(key);
  }
}
