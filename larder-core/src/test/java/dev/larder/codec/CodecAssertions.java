package dev.larder.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

/** Checks shared by the codec tests. */
final class CodecAssertions {

  private CodecAssertions() {}

  static <T> byte[] encode(Codec<T> codec, T value) {
    ByteSink sink = new ByteSink(1);
    codec.encode(value, sink);
    return sink.toByteArray();
  }

  static <T> byte[] encodeLast(Codec<T> codec, T value) {
    ByteSink sink = new ByteSink(1);
    codec.encodeLast(value, sink);
    return sink.toByteArray();
  }

  /**
   * The round-trip contract: decode(encode(v)) equals v and consumes exactly its bytes, the same
   * for the "last" forms, encoding is at least one byte, deterministic codecs give equal bytes for
   * equal values, and every strict prefix of an encoding is rejected.
   */
  static <T> void assertRoundTrip(Codec<T> codec, T value) {
    byte[] bytes = encode(codec, value);
    assertTrue(bytes.length >= 1, "every encoding has at least one byte");
    ByteSource in = new ByteSource(bytes);
    assertValueEquals(value, codec.decode(in));
    assertTrue(
        in.exhausted(),
        "decode consumed " + (bytes.length - in.remaining()) + " of " + bytes.length + " bytes");
    assertValueEquals(value, codec.decodeLast(new ByteSource(encodeLast(codec, value))));
    if (codec.deterministic()) {
      assertArrayEquals(bytes, encode(codec, value));
    }
    assertPrefixesRejected(codec, bytes);
  }

  /** Every strict prefix up to 128 bytes, then every 61st (long encodings: cost is quadratic). */
  static <T> void assertPrefixesRejected(Codec<T> codec, byte[] bytes) {
    for (int n = 0; n < bytes.length; n += n < 128 ? 1 : 61) {
      ByteSource prefix = new ByteSource(bytes, 0, n);
      assertThrows(
          CodecException.class,
          () -> codec.decode(prefix),
          "prefix of " + n + " of " + bytes.length + " bytes");
    }
  }

  static void assertValueEquals(Object expected, Object actual) {
    if (expected instanceof byte[] a && actual instanceof byte[] b) {
      assertArrayEquals(a, b);
    } else if (expected instanceof Float f && actual instanceof Float g) {
      assertEquals(Float.floatToRawIntBits(f), Float.floatToRawIntBits(g), "raw float bits");
    } else if (expected instanceof Double d && actual instanceof Double e) {
      assertEquals(Double.doubleToRawLongBits(d), Double.doubleToRawLongBits(e), "raw bits");
    } else {
      assertEquals(expected, actual);
    }
  }

  static String hex(byte[] bytes) {
    StringBuilder s = new StringBuilder();
    for (byte b : bytes) {
      s.append(String.format("%02x", b & 0xFF));
    }
    return s.toString();
  }

  static byte[] unhex(String hex) {
    byte[] out = new byte[hex.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(hex, 2 * i, 2 * i + 2, 16);
    }
    return out;
  }

  static String describe(Object value) {
    return value instanceof byte[] b ? Arrays.toString(b) : String.valueOf(value);
  }
}
