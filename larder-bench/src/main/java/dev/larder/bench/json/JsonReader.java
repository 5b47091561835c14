package dev.larder.bench.json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A recursive-descent JSON parser over one string; one instance parses one document. */
final class JsonReader {

  private static final int MAX_DEPTH = 256;

  private final String text;
  private int pos;
  private int depth;

  JsonReader(String text) {
    this.text = text;
  }

  Object readDocument() {
    Object value = readValue();
    skipWhitespace();
    if (pos != text.length()) {
      throw error("trailing characters");
    }
    return value;
  }

  private Object readValue() {
    skipWhitespace();
    if (pos >= text.length()) {
      throw error("unexpected end");
    }
    char c = text.charAt(pos);
    return switch (c) {
      case '{' -> readObject();
      case '[' -> readArray();
      case '"' -> readString();
      case 't' -> literal("true", true);
      case 'f' -> literal("false", false);
      case 'n' -> literal("null", null);
      default -> readNumber();
    };
  }

  private Map<String, Object> readObject() {
    enter();
    pos++;
    Map<String, Object> map = new LinkedHashMap<>();
    skipWhitespace();
    if (peek() == '}') {
      pos++;
      depth--;
      return map;
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"') {
        throw error("expected a string key");
      }
      String key = readString();
      skipWhitespace();
      expect(':');
      map.put(key, readValue());
      skipWhitespace();
      if (peek() == ',') {
        pos++;
      } else {
        expect('}');
        depth--;
        return map;
      }
    }
  }

  private List<Object> readArray() {
    enter();
    pos++;
    List<Object> list = new ArrayList<>();
    skipWhitespace();
    if (peek() == ']') {
      pos++;
      depth--;
      return list;
    }
    while (true) {
      list.add(readValue());
      skipWhitespace();
      if (peek() == ',') {
        pos++;
      } else {
        expect(']');
        depth--;
        return list;
      }
    }
  }

  private String readString() {
    pos++;
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (pos >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(pos++);
      if (c == '"') {
        return sb.toString();
      } else if (c == '\\') {
        sb.append(readEscape());
      } else if (c < 0x20) {
        throw error("control character in string");
      } else {
        sb.append(c);
      }
    }
  }

  private char readEscape() {
    if (pos >= text.length()) {
      throw error("unterminated escape");
    }
    char c = text.charAt(pos++);
    return switch (c) {
      case '"', '\\', '/' -> c;
      case 'n' -> '\n';
      case 'r' -> '\r';
      case 't' -> '\t';
      case 'b' -> '\b';
      case 'f' -> '\f';
      case 'u' -> readUnicode();
      default -> throw error("bad escape \\" + c);
    };
  }

  private char readUnicode() {
    if (pos + 4 > text.length()) {
      throw error("short \\u escape");
    }
    try {
      char c = (char) Integer.parseInt(text.substring(pos, pos + 4), 16);
      pos += 4;
      return c;
    } catch (NumberFormatException e) {
      throw error("bad \\u escape");
    }
  }

  private Object readNumber() {
    int start = pos;
    while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
      pos++;
    }
    String s = text.substring(start, pos);
    if (s.isEmpty()) {
      throw error("unexpected character '" + text.charAt(start) + "'");
    }
    try {
      if (s.indexOf('.') < 0 && s.indexOf('e') < 0 && s.indexOf('E') < 0) {
        try {
          return Long.parseLong(s);
        } catch (NumberFormatException tooLong) {
          return Double.parseDouble(s);
        }
      }
      return Double.parseDouble(s);
    } catch (NumberFormatException e) {
      pos = start;
      throw error("bad number '" + s + "'");
    }
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, pos)) {
      throw error("unexpected token");
    }
    pos += word.length();
    return value;
  }

  private void enter() {
    if (++depth > MAX_DEPTH) {
      throw error("nesting deeper than " + MAX_DEPTH);
    }
  }

  private char peek() {
    if (pos >= text.length()) {
      throw error("unexpected end");
    }
    return text.charAt(pos);
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    pos++;
  }

  private void skipWhitespace() {
    while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
      pos++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("invalid JSON at offset " + pos + ": " + what);
  }
}
