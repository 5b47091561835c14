package dev.larder.bench.json;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Writes values as JSON text; see {@link Json} for the types. */
final class JsonWriter {

  private JsonWriter() {}

  static void write(Object value, StringBuilder out, int indent, int depth) {
    switch (value) {
      case null -> out.append("null");
      case Boolean b -> out.append(b);
      case Double d -> writeDouble(d, out);
      case Float f -> writeDouble(f.doubleValue(), out);
      case Number n -> out.append(n);
      case CharSequence s -> writeString(s, out);
      case Map<?, ?> map -> writeMap(map, out, indent, depth);
      case List<?> list -> writeList(list, out, indent, depth);
      default ->
          throw new IllegalArgumentException("no JSON form for " + value.getClass().getName());
    }
  }

  private static void writeDouble(double d, StringBuilder out) {
    if (!Double.isFinite(d)) {
      out.append("null");
    } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      out.append((long) d);
    } else {
      out.append(d);
    }
  }

  private static void writeMap(Map<?, ?> map, StringBuilder out, int indent, int depth) {
    out.append('{');
    Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<?, ?> e = it.next();
      if (!(e.getKey() instanceof String key)) {
        throw new IllegalArgumentException("JSON object keys must be strings: " + e.getKey());
      }
      newline(out, indent, depth + 1);
      writeString(key, out);
      out.append(indent >= 0 ? ": " : ":");
      write(e.getValue(), out, indent, depth + 1);
      if (it.hasNext()) {
        out.append(',');
      }
    }
    if (!map.isEmpty()) {
      newline(out, indent, depth);
    }
    out.append('}');
  }

  private static void writeList(List<?> list, StringBuilder out, int indent, int depth) {
    out.append('[');
    for (int i = 0; i < list.size(); i++) {
      newline(out, indent, depth + 1);
      write(list.get(i), out, indent, depth + 1);
      if (i < list.size() - 1) {
        out.append(',');
      }
    }
    if (!list.isEmpty()) {
      newline(out, indent, depth);
    }
    out.append(']');
  }

  private static void newline(StringBuilder out, int indent, int depth) {
    if (indent >= 0) {
      out.append('\n').repeat(' ', indent * depth);
    }
  }

  static void writeString(CharSequence s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
