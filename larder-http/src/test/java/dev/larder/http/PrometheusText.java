package dev.larder.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A reader of Prometheus' text exposition format (version 0.0.4), enough for the tests: every
 * sample line as a name, its labels and its value; {@code # HELP} and {@code # TYPE} lines are
 * checked for shape and otherwise skipped. A line that is neither fails the parse, so the test that
 * uses this also checks the scrape is well-formed.
 */
final class PrometheusText {

  /** One sample. */
  record Sample(String name, Map<String, String> labels, double value) {}

  private static final Pattern SAMPLE =
      Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");
  private static final Pattern COMMENT = Pattern.compile("# (HELP|TYPE) [a-zA-Z_:][\\w:]* .*");

  private final List<Sample> samples;

  private PrometheusText(List<Sample> samples) {
    this.samples = samples;
  }

  static PrometheusText parse(String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n", -1)) {
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("#")) {
        if (!COMMENT.matcher(line).matches()) {
          throw new IllegalArgumentException("bad comment line: " + line);
        }
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches()) {
        throw new IllegalArgumentException("bad sample line: " + line);
      }
      samples.add(new Sample(m.group(1), labels(m.group(2), line), value(m.group(3))));
    }
    return new PrometheusText(samples);
  }

  private static Map<String, String> labels(String text, String line) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (text == null) {
      return labels;
    }
    Matcher m = LABEL.matcher(text);
    int end = 0;
    while (m.find() && m.start() == end) {
      labels.put(m.group(1), m.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
      end = m.end();
    }
    if (end != text.length()) {
      throw new IllegalArgumentException("bad labels in: " + line);
    }
    return labels;
  }

  private static double value(String text) {
    return switch (text) {
      case "NaN" -> Double.NaN;
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      default -> Double.parseDouble(text);
    };
  }

  /**
   * Returns the one matching sample's value, if there is one.
   *
   * @param name a sample name
   * @param labels label pairs the sample must have (others may be present)
   * @throws IllegalStateException if several match
   */
  Optional<Double> find(String name, String... labels) {
    List<Sample> matches =
        samples.stream().filter(s -> s.name().equals(name) && has(s, labels)).toList();
    if (matches.size() > 1) {
      throw new IllegalStateException(matches.size() + " samples match " + name);
    }
    return matches.stream().findFirst().map(Sample::value);
  }

  /** Like {@link #find}, but the sample must exist. */
  double value(String name, String... labels) {
    return find(name, labels)
        .orElseThrow(() -> new AssertionError("no sample " + name + " " + List.of(labels)));
  }

  List<Sample> samples() {
    return samples;
  }

  private static boolean has(Sample s, String... labels) {
    for (int i = 0; i < labels.length; i += 2) {
      if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
        return false;
      }
    }
    return true;
  }
}
