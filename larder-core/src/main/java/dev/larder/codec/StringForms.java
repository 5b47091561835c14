package dev.larder.codec;

import java.nio.charset.StandardCharsets;

/**
 * The string wire form. Header: varint {@code byteCount << 1 | wide}.
 * <ul>
 *   <li>{@code wide = 0}: every char is below 256; one byte a char (Latin-1).</li>
 *   <li>{@code wide = 1}: UTF-8 bytes. Strings with unpaired surrogates (which UTF-8 cannot
 *       carry) fall back to UTF-16LE code units, marked by a first byte 0xFF, which never
 *       starts valid UTF-8.</li>
 * </ul>
 */
final class StringForms {

  private static final int UTF16_MARK = 0xFF;

  private StringForms() {}

  static void write(String s, ByteSink out) {
    int n = s.length();
    if (isLatin1(s)) {
      out.writeVarLong((long) n << 1);
      for (int i = 0; i < n; i++) {
        out.writeByte(s.charAt(i));
      }
    } else if (hasUnpairedSurrogate(s)) {
      out.writeVarLong(((long) n * 2 + 1) << 1 | 1);
      out.writeByte(UTF16_MARK);
      for (int i = 0; i < n; i++) {
        out.writeShort(s.charAt(i));
      }
    } else {
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      out.writeVarLong((long) utf8.length << 1 | 1);
      out.writeBytes(utf8);
    }
  }

  static String read(ByteSource in) {
    long header = in.readVarLong();
    long count = header >>> 1;
    if (count > in.remaining()) {
      throw new CodecException("string of " + count + " bytes, " + in.remaining() + " left");
    }
    byte[] bytes = in.readBytes((int) count);
    if ((header & 1) == 0) {
      return new String(bytes, StandardCharsets.ISO_8859_1);
    }
    if (count > 0 && (bytes[0] & 0xFF) == UTF16_MARK) {
      return readUtf16(bytes);
    }
    return decodeUtf8Strictly(bytes);
  }

  private static String readUtf16(byte[] bytes) {
    if ((bytes.length - 1) % 2 != 0) {
      throw new CodecException("odd UTF-16 byte count " + (bytes.length - 1));
    }
    char[] chars = new char[(bytes.length - 1) / 2];
    for (int i = 0; i < chars.length; i++) {
      chars[i] = (char) ((bytes[1 + 2 * i] & 0xFF) | (bytes[2 + 2 * i] & 0xFF) << 8);
    }
    return new String(chars);
  }

  private static String decodeUtf8Strictly(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new CodecException("invalid UTF-8 in string", e);
    }
  }

  private static boolean isLatin1(String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      if (s.charAt(i) > 0xFF) {
        return false;
      }
    }
    return true;
  }

  private static boolean hasUnpairedSurrogate(String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return true;
        }
      } else if (Character.isLowSurrogate(c)) {
        return true;
      }
    }
    return false;
  }
}
