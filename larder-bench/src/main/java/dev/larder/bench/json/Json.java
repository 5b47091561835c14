package dev.larder.bench.json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON writer and reader for the benchmark's result files and for the rows a forked trial
 * sends back to its parent.
 *
 * <p>Values are {@code null}, {@link Boolean}, {@link Number}, {@link String}, {@link List} and
 * {@link Map} with string keys. The reader returns {@link LinkedHashMap} (key order kept), {@link
 * ArrayList}, {@link String}, {@link Boolean}, {@link Long} for integers that fit and {@link
 * Double} otherwise. Non-finite doubles have no JSON form and are written as null.
 *
 * <p>Stateless and thread-safe.
 */
public final class Json {

  private Json() {}

  /**
   * Returns its compact JSON text.
   *
   * @param value a value of the supported types
   * @throws IllegalArgumentException for an unsupported type
   */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    JsonWriter.write(value, out, -1, 0);
    return out.toString();
  }

  /**
   * Returns its JSON text, indented by two spaces per level.
   *
   * @param value a value of the supported types
   */
  public static String writePretty(Object value) {
    StringBuilder out = new StringBuilder();
    JsonWriter.write(value, out, 2, 0);
    return out.append('\n').toString();
  }

  /**
   * Returns the value.
   *
   * @param text one JSON value, surrounded by optional whitespace
   * @throws IllegalArgumentException if the text is not valid JSON; the message gives the offset
   */
  public static Object parse(String text) {
    return new JsonReader(text).readDocument();
  }

  /**
   * Returns the object.
   *
   * @param text a JSON object
   * @throws IllegalArgumentException if the text is not a JSON object
   */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> parseObject(String text) {
    Object value = parse(text);
    if (!(value instanceof Map)) {
      throw new IllegalArgumentException("expected a JSON object");
    }
    return (Map<String, Object>) value;
  }
}
