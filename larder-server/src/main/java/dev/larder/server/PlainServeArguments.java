package dev.larder.server;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code serve}'s arguments read without picocli, when they are all of the plain form {@code --name
 * value} or {@code --name=value}: each of {@link #VALUED} at most once, {@code --set NAME=VALUE}
 * any number of times. Anything else (help, version, an unknown or repeated option, a missing or
 * empty value, a value that starts with {@code -} where picocli would read an option, a port that
 * is not a whole number, an {@code @file}, {@code --print-jvm-options}) is left to picocli, which
 * reads it or names the error as before.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Why: picocli's classes are Java 5 class files, which the JDK's AOT cache cannot hold, so
 * loading, verifying and running them costs about 150-300 ms at every start of {@code ./larder
 * serve}, most of the time an empty server takes to answer. A durable server's restart time is a
 * promised figure; the plain form (what scripts, the benchmarks and most users type) skips that
 * cost. {@code ServeCommandTest} checks that every option picocli declares is either read here or
 * left to picocli, and that both readings of the same plain arguments give the same settings.
 *
 * <p>Stateless; thread-safe.
 */
final class PlainServeArguments {
  /** The options that take one value, each read at most once. */
  static final Set<String> VALUED =
      Set.of(
          "--config",
          "--bind",
          "--port",
          "--memcache-port",
          "--http-port",
          "--maxmemory",
          "--requirepass",
          "--dir",
          "--appendfsync",
          "--cluster",
          "--cluster-bind",
          "--cluster-port",
          "--peers");

  /** The options whose value picocli converts to an {@link Integer}. */
  private static final Set<String> WHOLE_NUMBERS =
      Set.of("--port", "--memcache-port", "--http-port", "--cluster-port");

  /**
   * A whole number in the form every reading agrees on: no sign but a minus, no leading zero (which
   * a reading of octal would take otherwise), at most ten digits (checked against int's range
   * next).
   */
  private static final java.util.regex.Pattern WHOLE_NUMBER =
      java.util.regex.Pattern.compile("-?(0|[1-9][0-9]{0,9})");

  /** The option that takes {@code NAME=VALUE} any number of times. */
  static final String SET = "--set";

  private PlainServeArguments() {}

  /**
   * What plain arguments say.
   *
   * @param values each valued option given, by its name, with its value
   * @param settings the {@code --set} pairs in the order given (a later pair of the same name wins,
   *     as with picocli)
   */
  record Parsed(Map<String, String> values, Map<String, String> settings) {}

  /**
   * Reads {@code serve}'s arguments (without the word {@code serve}) when they are all plain.
   *
   * @param args the arguments; never null
   * @return what they say, or empty when picocli has to read them
   */
  static Optional<Parsed> read(List<String> args) {
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      String name;
      String value;
      int equals = arg.indexOf('=');
      if (arg.startsWith("--") && equals > 0) {
        name = arg.substring(0, equals);
        value = arg.substring(equals + 1);
      } else {
        if (i + 1 >= args.size()) {
          return Optional.empty();
        }
        name = arg;
        value = args.get(++i);
      }
      if (!plainValue(name, value)) {
        return Optional.empty();
      }
      if (name.equals(SET)) {
        int split = value.indexOf('=');
        if (split <= 0) {
          return Optional.empty();
        }
        settings.put(value.substring(0, split), value.substring(split + 1));
      } else if (!VALUED.contains(name) || values.putIfAbsent(name, value) != null) {
        return Optional.empty();
      }
    }
    return Optional.of(new Parsed(values, settings));
  }

  private static boolean plainValue(String name, String value) {
    if (value.isEmpty()) {
      return false;
    }
    if (WHOLE_NUMBERS.contains(name)) {
      if (!WHOLE_NUMBER.matcher(value).matches()) {
        return false;
      }
      try {
        Integer.parseInt(value);
        return true;
      } catch (NumberFormatException e) {
        return false;
      }
    }
    if (value.startsWith("-")) {
      return false;
    }
    if (name.equals("--config") || name.equals("--dir")) {
      try {
        var _ = Path.of(value);
      } catch (InvalidPathException e) {
        return false;
      }
    }
    return true;
  }
}
