package dev.larder.server.internal.resp;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an inline command into words as Redis does: blanks separate words; a word may be
 * double-quoted (with {@code \n \r \t \b \a \\ \" \xHH} escapes) or single-quoted (with {@code
 * \'}); a closing quote must be followed by a blank or the end.
 *
 * <p>Stateless and thread-safe.
 */
final class InlineSplitter {
  private InlineSplitter() {}

  /**
   * Returns the words, or null if quotes are unbalanced.
   *
   * @param line the line without its newline
   */
  static List<byte[]> split(byte[] line) {
    List<byte[]> words = new ArrayList<>();
    int i = 0;
    while (true) {
      while (i < line.length && blank(line[i])) {
        i++;
      }
      if (i >= line.length) {
        return words;
      }
      ByteArrayOutputStream word = new ByteArrayOutputStream();
      i = word(line, i, word);
      if (i < 0) {
        return null;
      }
      words.add(word.toByteArray());
    }
  }

  private static int word(byte[] line, int i, ByteArrayOutputStream word) {
    byte quote = line[i] == '"' || line[i] == '\'' ? line[i] : 0;
    if (quote != 0) {
      i++;
    }
    while (i < line.length) {
      byte c = line[i];
      if (quote == 0) {
        if (blank(c)) {
          return i;
        }
        word.write(c);
        i++;
      } else if (c == quote) {
        return i + 1 < line.length && !blank(line[i + 1]) ? -1 : i + 1;
      } else if (c == '\\' && i + 1 < line.length) {
        i = escape(line, i, quote, word);
      } else {
        word.write(c);
        i++;
      }
    }
    return quote == 0 ? i : -1;
  }

  private static int escape(byte[] line, int i, byte quote, ByteArrayOutputStream word) {
    byte n = line[i + 1];
    if (quote == '\'') {
      word.write(n == '\'' ? '\'' : '\\');
      return n == '\'' ? i + 2 : i + 1;
    }
    if (n == 'x' && i + 3 < line.length && hex(line[i + 2]) >= 0 && hex(line[i + 3]) >= 0) {
      word.write(hex(line[i + 2]) * 16 + hex(line[i + 3]));
      return i + 4;
    }
    word.write(
        switch (n) {
          case 'n' -> '\n';
          case 'r' -> '\r';
          case 't' -> '\t';
          case 'b' -> '\b';
          case 'a' -> 7;
          default -> n;
        });
    return i + 2;
  }

  private static int hex(byte b) {
    return Character.digit(b, 16);
  }

  private static boolean blank(byte b) {
    return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == 0x0B || b == '\f';
  }
}
