package dev.larder.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The wire form of a cache's values in the REST endpoint's bodies: a media type and the conversion
 * both ways.
 *
 * <p>Implementations must be thread-safe. {@link #read} throws {@link IllegalArgumentException} for
 * a body that is not a value (answered with 400 Bad Request and the message).
 *
 * @param <V> the value type
 */
public interface ValueFormat<V> {

  /**
   * Returns the media type without parameters, e.g. {@code text/plain}; a PUT whose {@code
   * Content-Type} names another type is refused with 415 Unsupported Media Type.
   */
  String mediaType();

  /** Returns the full {@code Content-Type} of GET responses, parameters included. */
  default String contentType() {
    return mediaType();
  }

  /**
   * Returns its body.
   *
   * @param value a value from the cache, never null
   */
  byte[] write(V value);

  /**
   * Returns the value.
   *
   * @param body a request body, never null, possibly empty
   * @throws IllegalArgumentException if the body is not a value of this form
   */
  V read(byte[] body);

  /** Returns UTF-8 text as {@code text/plain}; a body that is not valid UTF-8 is refused. */
  static ValueFormat<String> utf8() {
    return Utf8.INSTANCE;
  }

  /** Returns raw bytes as {@code application/octet-stream}. */
  static ValueFormat<byte[]> bytes() {
    return Bytes.INSTANCE;
  }

  /** UTF-8 text, strictly decoded: a malformed body is an error, never replacement chars. */
  enum Utf8 implements ValueFormat<String> {
    INSTANCE;

    @Override
    public String mediaType() {
      return "text/plain";
    }

    @Override
    public String contentType() {
      return "text/plain; charset=utf-8";
    }

    @Override
    public byte[] write(String value) {
      return value.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String read(byte[] body) {
      try {
        return StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(Objects.requireNonNull(body, "body")))
            .toString();
      } catch (CharacterCodingException e) {
        throw new IllegalArgumentException("body is not valid UTF-8", e);
      }
    }
  }

  /** Bytes as they are; arrays are copied neither way, as the cache copies them itself. */
  enum Bytes implements ValueFormat<byte[]> {
    INSTANCE;

    @Override
    public String mediaType() {
      return "application/octet-stream";
    }

    @Override
    public byte[] write(byte[] value) {
      return value;
    }

    @Override
    public byte[] read(byte[] body) {
      return Objects.requireNonNull(body, "body");
    }
  }
}
