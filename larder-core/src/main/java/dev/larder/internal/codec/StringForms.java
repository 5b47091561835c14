package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.CodecException;
import java.nio.charset.StandardCharsets;

/**
 * The string wire form (docs/spec/codecs.md, "String"). Header: varint {@code byteCount << 1 |
 * wide}, then {@code byteCount} bytes.
 *
 * <ul>
 *   <li>{@code wide = 0}: every char is below 256; one byte a char (Latin-1).
 *   <li>{@code wide = 1}: UTF-8 bytes. Strings with unpaired surrogates (which UTF-8 cannot carry)
 *       fall back to UTF-16LE code units, marked by a first byte 0xFF, which never starts valid
 *       UTF-8.
 * </ul>
 *
 * <p>Last form ({@link #writeLast}: a whole key or value, whose length the store already records):
 * no header; the UTF-8 bytes, or, for strings with unpaired surrogates, 0xFF followed by UTF-16LE
 * code units. An ASCII key then costs exactly one byte a char.
 *
 * <p>Implementation notes: {@code String.getBytes(UTF_8)} is intrinsified for compact (Latin-1)
 * strings, so the common ASCII case is one array copy; its length equals the string's length when
 * the string is ASCII, which then is also its Latin-1 form, or when every non-ASCII char is an
 * unpaired surrogate (each replaced by one {@code '?'}), which {@link #isAscii} rules out.
 */
public final class StringForms {

  private static final int UTF16_MARK = 0xFF;

  /** Up to this length, writeLast copies ASCII text char by char. */
  private static final int SHORT_TEXT = 64;

  private StringForms() {}

  public static void write(String s, ByteSink out) {
    int n = s.length();
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    if (utf8.length == n && isAscii(utf8, s)) {
      out.writeVarLong((long) n << 1);
      out.writeBytes(utf8);
    } else if (isLatin1(s)) {
      out.writeVarLong((long) n << 1);
      out.writeBytes(s.getBytes(StandardCharsets.ISO_8859_1));
    } else if (hasUnpairedSurrogate(s)) {
      writeUtf16(s, out);
    } else {
      out.writeVarLong((long) utf8.length << 1 | 1);
      out.writeBytes(utf8);
    }
  }

  public static String read(ByteSource in) {
    long header = in.readVarLong();
    long count = header >>> 1;
    if (count > in.remaining()) {
      throw new CodecException("string of " + count + " bytes, " + in.remaining() + " left");
    }
    int length = (int) count;
    if ((header & 1) == 0) {
      return in.readLatin1(length);
    }
    if (length > 0 && in.peekUnsignedByte() == UTF16_MARK) {
      return readUtf16(in, length);
    }
    return in.readUtf8(length);
  }

  public static void writeLast(String s, ByteSink out) {
    // Short ASCII text (most keys) is copied char by char, with no intermediate array: a read's
    // key is encoded on every lookup. Longer text goes through the intrinsic getBytes below.
    if (s.length() <= SHORT_TEXT && out.writeAsciiIfAscii(s)) {
      return;
    }
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    // ASCII has no surrogates: skip the per-char scan (same test as write's fast path).
    if (!(utf8.length == s.length() && isAscii(utf8, s)) && hasUnpairedSurrogate(s)) {
      out.writeByte(UTF16_MARK);
      for (int i = 0, n = s.length(); i < n; i++) {
        out.writeShort(s.charAt(i));
      }
    } else {
      out.writeBytes(utf8);
    }
  }

  public static String readLast(ByteSource in) {
    int length = in.remaining();
    if (length > 0 && in.peekUnsignedByte() == UTF16_MARK) {
      return readUtf16(in, length);
    }
    return in.readUtf8(length);
  }

  private static void writeUtf16(String s, ByteSink out) {
    int n = s.length();
    out.writeVarLong(((long) n * 2 + 1) << 1 | 1);
    out.writeByte(UTF16_MARK);
    for (int i = 0; i < n; i++) {
      out.writeShort(s.charAt(i));
    }
  }

  private static String readUtf16(ByteSource in, int length) {
    in.readUnsignedByte();
    if ((length - 1) % 2 != 0) {
      throw new CodecException("odd UTF-16 byte count " + (length - 1));
    }
    char[] chars = new char[(length - 1) / 2];
    for (int i = 0; i < chars.length; i++) {
      chars[i] = (char) in.readUnsignedShort();
    }
    String s = new String(chars);
    if (!hasUnpairedSurrogate(s)) {
      // The writer uses this form only for text UTF-8 cannot carry; anything else is corrupt,
      // and accepting it would give one string two encodings.
      throw new CodecException("UTF-16 form used for a string without unpaired surrogates");
    }
    return s;
  }

  /** Returns whether {@code utf8}, as long as {@code s}, is {@code s} and not '?' replacements. */
  private static boolean isAscii(byte[] utf8, String s) {
    for (byte b : utf8) {
      if (b == '?') {
        return !hasSurrogate(s);
      }
    }
    return true;
  }

  private static boolean hasSurrogate(String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      if (Character.isSurrogate(s.charAt(i))) {
        return true;
      }
    }
    return false;
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
