package dev.larder.jcache.internal;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a properties file keeping the line each entry starts on, which {@link Properties} loses.
 *
 * <p>Implementation notes: the text is split into logical lines as {@link Properties#load} defines
 * them (a line ending in an odd number of backslashes continues on the next; a comment line never
 * continues; a line holding only a backslash adds nothing, so the logical line starts on the next
 * one), and each logical line is then handed to {@link Properties#load} on its own, so separators,
 * escapes and continuations are read exactly as the JDK reads them. A key given twice keeps its
 * last value, as in {@code Properties}, and that value's line. Stateless.
 */
final class NumberedProperties {

  /**
   * One key and value of the file.
   *
   * @param key the key, unescaped
   * @param value the value, unescaped and untrimmed
   * @param line the 1-based line the entry starts on
   */
  record Entry(String key, String value, int line) {}

  private static final Pattern TERMINATOR = Pattern.compile("\r\n|\r|\n");

  private NumberedProperties() {}

  /**
   * Returns its entries in file order (a repeated key where it last appears).
   *
   * @param text the whole file
   */
  static List<Entry> parse(String text) {
    List<Entry> entries = new ArrayList<>();
    List<Integer> starts = lineStarts(text);
    int lineCount = starts.size() - 1;
    int i = 0;
    while (i < lineCount) {
      String line = text.substring(starts.get(i), starts.get(i + 1));
      if (isLoneContinuation(line) && i + 1 < lineCount) {
        i++; // Properties starts the logical line afresh on the next line: nothing came before
        continue;
      }
      int first = i;
      boolean comment = isBlankOrComment(line);
      while (!comment && continues(stripTerminator(line)) && i + 1 < lineCount) {
        i++;
        line = text.substring(starts.get(i), starts.get(i + 1));
      }
      i++;
      if (!comment) {
        // The exact text, terminators included, so Properties reads it as it would in place.
        add(entries, text.substring(starts.get(first), starts.get(i)), first + 1);
      }
    }
    return entries;
  }

  /** Returns the offset where each line starts, then the text's length. */
  private static List<Integer> lineStarts(String text) {
    List<Integer> starts = new ArrayList<>();
    starts.add(0);
    Matcher terminator = TERMINATOR.matcher(text);
    while (terminator.find()) {
      starts.add(terminator.end());
    }
    if (starts.getLast() < text.length()) {
      starts.add(text.length());
    }
    return starts;
  }

  private static String stripTerminator(String line) {
    return TERMINATOR.matcher(line).replaceFirst("");
  }

  private static void add(List<Entry> entries, String logicalLine, int line) {
    Properties one = new Properties();
    try {
      one.load(new StringReader(logicalLine));
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringReader does not fail
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("line " + line + ": " + e.getMessage(), e);
    }
    for (String key : one.stringPropertyNames()) {
      entries.removeIf(entry -> entry.key().equals(key));
      entries.add(new Entry(key, one.getProperty(key), line));
    }
  }

  private static boolean isBlankOrComment(String line) {
    int i = contentStart(line);
    return i == line.length() || line.charAt(i) == '#' || line.charAt(i) == '!';
  }

  private static boolean isLoneContinuation(String line) {
    String content = stripTerminator(line);
    int i = contentStart(content);
    return i == content.length() - 1 && content.charAt(i) == '\\';
  }

  /** Returns the index after the white space Properties skips at a line's start (no other). */
  private static int contentStart(String line) {
    int i = 0;
    while (i < line.length() && " \t\f".indexOf(line.charAt(i)) >= 0) {
      i++;
    }
    return i;
  }

  private static boolean continues(String line) {
    int backslashes = 0;
    for (int j = line.length() - 1; j >= 0 && line.charAt(j) == '\\'; j--) {
      backslashes++;
    }
    return backslashes % 2 == 1;
  }
}
