package dev.larder.bench.scenario;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One {@code -P} parameter of a scenario, declared once: its name, what it accepts and its defaults
 * for full and {@code --quick} runs. A scenario reads every value through its declaration, and
 * {@code ./larder bench} calls {@link #check} on every parameter of the selected scenarios before
 * anything runs, so a value out of range is a usage error (exit 2) that names the parameter and
 * what it accepts, never a trial that fails later or a silent overflow.
 *
 * <p>Declarations are immutable and thread-safe.
 */
public sealed interface Parameter {

  /** Returns the name used with {@code -P NAME=VALUE}. */
  String name();

  /**
   * Checks the value given for this parameter, if any.
   *
   * @param options the run's options
   * @throws IllegalArgumentException naming the parameter and what it accepts, if the value is not
   *     accepted
   */
  void check(RunOptions options);

  /**
   * Returns what the parameter accepts and its defaults, as {@code ./larder bench --list} shows.
   */
  String describe();

  /**
   * A whole number from {@code min} to {@code max}; {@code _} and {@code ,} between digits are
   * ignored.
   *
   * @param name the parameter's name
   * @param min the smallest value accepted
   * @param max the largest value accepted
   * @param full the default of a full run
   * @param quick the default of a quick run
   */
  record WholeNumber(String name, long min, long max, long full, long quick) implements Parameter {

    /** Checks that the range holds both defaults. */
    public WholeNumber {
      Objects.requireNonNull(name, "name");
      if (min > max || full < min || full > max || quick < min || quick > max) {
        throw new IllegalArgumentException(name + ": defaults outside " + min + ".." + max);
      }
    }

    /**
     * Returns the value given, else the default for this kind of run.
     *
     * @param options the run's options
     * @throws IllegalArgumentException naming the parameter and its range if the value given is not
     *     a whole number within it
     */
    public long get(RunOptions options) {
      String value = options.params().get(name);
      if (value == null) {
        return options.quick() ? quick : full;
      }
      return parse(name, value, value, min, max);
    }

    @Override
    public String describe() {
      return String.format(
          Locale.ROOT,
          "%s: a whole number from %,d to %,d (default %,d; quick" + " %,d)",
          name,
          min,
          max,
          full,
          quick);
    }

    /** Returns {@link #get} as an int; declare {@code max} within int range to use it. */
    public int getInt(RunOptions options) {
      return Math.toIntExact(get(options));
    }

    @Override
    public void check(RunOptions options) {
      get(options);
    }
  }

  /**
   * A comma-separated list of whole numbers, each from {@code min} to {@code max}.
   *
   * @param name the parameter's name
   * @param min the smallest element accepted
   * @param max the largest element accepted
   * @param full the default of a full run
   * @param quick the default of a quick run
   */
  record WholeNumbers(String name, long min, long max, List<Long> full, List<Long> quick)
      implements Parameter {

    /** Copies the defaults. */
    public WholeNumbers {
      Objects.requireNonNull(name, "name");
      full = List.copyOf(full);
      quick = List.copyOf(quick);
    }

    /**
     * Returns the values given, else the defaults for this kind of run.
     *
     * @param options the run's options
     * @throws IllegalArgumentException naming the parameter and the range if an element is not a
     *     whole number within it
     */
    public List<Long> get(RunOptions options) {
      String value = options.params().get(name);
      if (value == null) {
        return options.quick() ? quick : full;
      }
      List<Long> values = new ArrayList<>();
      for (String element : value.split("\\s*,\\s*", -1)) {
        values.add(parse(name, element, value, min, max));
      }
      return values;
    }

    @Override
    public void check(RunOptions options) {
      get(options);
    }

    @Override
    public String describe() {
      return String.format(
          Locale.ROOT,
          "%s: whole numbers from %,d to %,d, comma-separated" + " (default %s; quick %s)",
          name,
          min,
          max,
          join(full),
          join(quick));
    }
  }

  /**
   * A decimal number from {@code min} to {@code max}.
   *
   * @param name the parameter's name
   * @param min the smallest value accepted
   * @param max the largest value accepted
   * @param full the default of a full run
   * @param quick the default of a quick run
   */
  record Decimal(String name, double min, double max, double full, double quick)
      implements Parameter {

    /** Checks for a name. */
    public Decimal {
      Objects.requireNonNull(name, "name");
    }

    /**
     * Returns the value given, else the default for this kind of run.
     *
     * @param options the run's options
     * @throws IllegalArgumentException naming the parameter and its range if the value given is not
     *     a number within it
     */
    public double get(RunOptions options) {
      String value = options.params().get(name);
      if (value == null) {
        return options.quick() ? quick : full;
      }
      double parsed;
      try {
        parsed = Double.parseDouble(value.strip());
      } catch (NumberFormatException e) {
        parsed = Double.NaN;
      }
      if (!(parsed >= min && parsed <= max)) { // also refuses NaN
        throw new IllegalArgumentException(
            "-P "
                + name
                + "="
                + value
                + ": "
                + name
                + " must be a number from "
                + plain(min)
                + " to "
                + plain(max));
      }
      return parsed;
    }

    @Override
    public void check(RunOptions options) {
      get(options);
    }

    @Override
    public String describe() {
      return name
          + ": a number from "
          + plain(min)
          + " to "
          + plain(max)
          + " (default "
          + plain(full)
          + "; quick "
          + plain(quick)
          + ")";
    }
  }

  /**
   * A comma-separated list of names, each one of {@code allowed}.
   *
   * @param name the parameter's name
   * @param allowed the names accepted
   * @param full the default of a full run
   * @param quick the default of a quick run
   */
  record Choices(String name, List<String> allowed, List<String> full, List<String> quick)
      implements Parameter {

    /** Copies the lists. */
    public Choices {
      Objects.requireNonNull(name, "name");
      allowed = List.copyOf(allowed);
      full = List.copyOf(full);
      quick = List.copyOf(quick);
    }

    /**
     * Returns the names given, else the defaults for this kind of run.
     *
     * @param options the run's options
     * @throws IllegalArgumentException naming the parameter and the names it accepts if one is not
     *     among them
     */
    public List<String> get(RunOptions options) {
      String value = options.params().get(name);
      if (value == null) {
        return options.quick() ? quick : full;
      }
      List<String> values = List.of(value.split("\\s*,\\s*", -1));
      for (String element : values) {
        if (!allowed.contains(element)) {
          throw new IllegalArgumentException(
              "-P "
                  + name
                  + "="
                  + value
                  + ": "
                  + name
                  + " takes a comma-separated list of "
                  + String.join(", ", allowed)
                  + " ('"
                  + element
                  + "' is not one)");
        }
      }
      return values;
    }

    @Override
    public void check(RunOptions options) {
      get(options);
    }

    @Override
    public String describe() {
      return name
          + ": any of "
          + String.join(", ", allowed)
          + ", comma-separated (default "
          + join(full)
          + "; quick "
          + join(quick)
          + ")";
    }
  }

  /**
   * A parameter the scenario checks itself when it plans its trials (file names, trace names, lists
   * with rules of their own); {@code ./larder bench} plans every selected scenario before anything
   * runs, so its errors are usage errors too.
   *
   * @param name the parameter's name
   */
  record Checked(String name) implements Parameter {

    /** Checks for a name. */
    public Checked {
      Objects.requireNonNull(name, "name");
    }

    @Override
    public void check(RunOptions options) {
      // checked by the scenario's plan
    }

    @Override
    public String describe() {
      return name + ": see larder-bench/README.md";
    }
  }

  private static String join(List<?> values) {
    return String.join(",", values.stream().map(String::valueOf).toList());
  }

  private static String plain(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  /**
   * Returns {@code element} as a whole number from {@code min} to {@code max}.
   *
   * @throws IllegalArgumentException naming the parameter, the value given and the range
   */
  private static long parse(String name, String element, String value, long min, long max) {
    long parsed;
    try {
      parsed = Long.parseLong(element.strip().replace("_", "").replace(",", ""));
    } catch (NumberFormatException e) { // not a number, or beyond a long
      throw outOfRange(name, element, value, min, max);
    }
    if (parsed < min || parsed > max) {
      throw outOfRange(name, element, value, min, max);
    }
    return parsed;
  }

  private static IllegalArgumentException outOfRange(
      String name, String element, String value, long min, long max) {
    boolean oneOfMany = !element.equals(value);
    return new IllegalArgumentException(
        String.format(
            Locale.ROOT,
            "-P %s=%s: %s must be %s from %,d to %,d%s",
            name,
            value,
            name,
            oneOfMany ? "a comma-separated list of whole numbers, each" : "a whole number",
            min,
            max,
            oneOfMany ? " ('" + element + "' is not)" : ""));
  }
}
