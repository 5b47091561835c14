package dev.larder.bench.harness;

import java.io.Console;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Shows the progress of a long run: on a terminal, one line redrawn in place (a bar, the count, the
 * rate and the time left), with other lines printed above it; elsewhere (a pipe, a CI log), plain
 * lines, one every {@value #PLAIN_EVERY_SECONDS} seconds at most and one when the count completes.
 *
 * <p>Formats, for a task labelled {@code crash always} at 12 of 40 after 30 s:
 *
 * <pre>
 *   terminal: crash always [#######.................] 12/40  30%  24.0/min  1:10 left
 *   plain:    crash always: 12/40 (30%), 24.0/min, 1:10 left
 * </pre>
 *
 * A rate under one per second is shown per minute ({@code 24.0/min}), under one per minute per
 * hour; the time left is the remaining count at the average rate since the task started, unknown
 * ({@code ?}) until the first step. Whether this is a terminal is decided once, by {@link
 * #onTerminal()}.
 *
 * <p>Not thread-safe: the harness calls it from one thread at a time (callers that report from
 * several threads synchronize on the instance).
 */
public final class ProgressBar {
  /** The shortest time between two plain lines of one task, unless it completes. */
  static final int PLAIN_EVERY_SECONDS = 10;

  private static final long REDRAW_NANOS = 100_000_000L;
  private static final int BAR_WIDTH = 24;

  private final PrintStream out;
  private final boolean terminal;
  private final LongSupplier nanoTime;
  private Task shown;
  private boolean drawn;
  private long lastDraw = Long.MIN_VALUE;

  /**
   * @param out where to write (the terminal's stderr)
   * @param terminal whether to redraw one line in place, or print plain lines
   * @param nanoTime the clock ({@code System::nanoTime}; tests give their own)
   */
  public ProgressBar(PrintStream out, boolean terminal, LongSupplier nanoTime) {
    this.out = Objects.requireNonNull(out, "out");
    this.terminal = terminal;
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /**
   * Returns a bar on {@code out}, redrawn in place if this process runs on a terminal.
   *
   * @param out where to write
   */
  public static ProgressBar of(PrintStream out) {
    return new ProgressBar(out, onTerminal(), System::nanoTime);
  }

  /**
   * Returns whether progress goes to a terminal: the process has an interactive console ({@link
   * Console#isTerminal()}: stdin and stdout), or, on Linux, its stderr is a terminal device (so
   * {@code ./larder bench x > table.md} still draws the bar), and {@code TERM} is not {@code dumb};
   * {@code LARDER_PROGRESS=plain} or {@code =bar} decides instead when set.
   */
  public static boolean onTerminal() {
    String forced = System.getenv("LARDER_PROGRESS");
    if ("plain".equals(forced)) {
      return false;
    }
    if ("bar".equals(forced)) {
      return true;
    }
    if ("dumb".equals(System.getenv("TERM"))) {
      return false;
    }
    @SuppressWarnings("SystemConsoleNull") // still null when the JVM has no console provider
    Console console = System.console();
    return (console != null && console.isTerminal()) || stderrIsTerminal();
  }

  private static boolean stderrIsTerminal() {
    try {
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return false; // not Linux, or no /proc: the console's answer stands
    }
  }

  /** Returns whether lines are redrawn in place. */
  public boolean terminal() {
    return terminal;
  }

  /**
   * Starts a counted task and shows it (instead of the task shown so far).
   *
   * @param label what is counted, e.g. {@code "crash always"}
   * @param total how many steps make it complete (positive)
   * @return the task
   */
  public Task start(String label, long total) {
    return start(label, total, nanoTime.getAsLong());
  }

  /**
   * Starts a counted task that began earlier (its rate and time left count from then), e.g. a trial
   * whose first count arrives after its JVM started and its first step finished.
   *
   * @param label what is counted
   * @param total how many steps make it complete (positive)
   * @param startedNanos when it began, on this bar's clock
   * @return the task
   */
  public Task start(String label, long total, long startedNanos) {
    if (total <= 0) {
      throw new IllegalArgumentException("total must be positive: " + total);
    }
    Task task = new Task(Objects.requireNonNull(label, "label"), total, startedNanos);
    show(task);
    return task;
  }

  /**
   * Shows a task started earlier again (e.g. a run's task after one of its trials).
   *
   * @param task the task
   */
  public void show(Task task) {
    shown = Objects.requireNonNull(task, "task");
    redraw(true);
  }

  /**
   * Prints a line; on a terminal, above the bar, which is drawn again below it.
   *
   * @param line the line
   */
  public void message(String line) {
    clear();
    out.println(line);
    redraw(true);
  }

  /**
   * Removes the bar from the terminal (plain output has nothing to remove); later messages are
   * printed without it until a task is started or shown again.
   */
  public void close() {
    clear();
    shown = null;
    out.flush();
  }

  private void clear() {
    if (terminal && drawn) {
      out.print("\r\033[K");
      drawn = false;
    }
  }

  private void redraw(boolean force) {
    if (!terminal || shown == null) {
      return;
    }
    long now = nanoTime.getAsLong();
    if (!force && now - lastDraw < REDRAW_NANOS && shown.done < shown.total) {
      return;
    }
    lastDraw = now;
    out.print("\r" + shown.barLine(now) + "\033[K");
    out.flush();
    drawn = true;
  }

  /** One counted task. */
  public final class Task {
    private final String label;
    private final long total;
    private final long started;
    private long done;
    private String note = "";
    private long lastPlain = Long.MIN_VALUE;
    private long finished = Long.MIN_VALUE;

    private Task(String label, long total, long started) {
      this.label = label;
      this.total = total;
      this.started = started;
    }

    /**
     * Records progress and shows it: redrawn on a terminal, a plain line if {@value
     * #PLAIN_EVERY_SECONDS} s passed since this task's last one or the task completed.
     *
     * @param newDone steps done so far (clamped to 0..total)
     * @param newNote a short note shown after the figures (e.g. {@code "0 lost"}), or empty
     */
    public void update(long newDone, String newNote) {
      done = Math.max(0, Math.min(total, newDone));
      note = newNote == null ? "" : newNote;
      if (done == total && finished == Long.MIN_VALUE) {
        finished = nanoTime.getAsLong(); // rate and duration stop here
      }
      if (shown != this) {
        return;
      }
      if (terminal) {
        redraw(false);
        return;
      }
      long now = nanoTime.getAsLong();
      if (done == total
          || lastPlain == Long.MIN_VALUE
          || now - lastPlain >= PLAIN_EVERY_SECONDS * 1_000_000_000L) {
        lastPlain = now;
        out.println(plainLine(now));
      }
    }

    /**
     * Records the steps done, keeping the current note.
     *
     * @param newDone steps done so far
     */
    public void update(long newDone) {
      update(newDone, note);
    }

    /** Returns steps done so far. */
    public long done() {
      return done;
    }

    /** Returns what is counted. */
    public String label() {
      return label;
    }

    /** Returns steps in all. */
    public long total() {
      return total;
    }

    String plainLine(long clock) {
      long now = finished == Long.MIN_VALUE ? clock : finished;
      return label
          + ": "
          + done
          + "/"
          + total
          + " ("
          + percent()
          + "%), "
          + rate(now)
          + ", "
          + left(now)
          + (note.isEmpty() ? "" : ", " + note);
    }

    String barLine(long clock) {
      long now = finished == Long.MIN_VALUE ? clock : finished;
      int filled = (int) (BAR_WIDTH * done / total);
      return label
          + " ["
          + "#".repeat(filled)
          + ".".repeat(BAR_WIDTH - filled)
          + "] "
          + done
          + "/"
          + total
          + "  "
          + percent()
          + "%  "
          + rate(now)
          + "  "
          + left(now)
          + (note.isEmpty() ? "" : "  " + note);
    }

    private long percent() {
      return 100 * done / total;
    }

    private String rate(long now) {
      double seconds = (now - started) / 1e9;
      if (done == 0 || seconds <= 0) {
        return "?/s";
      }
      double perSecond = done / seconds;
      if (perSecond >= 1) {
        return String.format(Locale.ROOT, "%.2f/s", perSecond);
      }
      return perSecond * 60 >= 1
          ? String.format(Locale.ROOT, "%.1f/min", perSecond * 60)
          : String.format(Locale.ROOT, "%.1f/h", perSecond * 3600);
    }

    private String left(long now) {
      if (done == total) {
        return "done in " + clock((now - started) / 1_000_000_000L);
      }
      if (done == 0 || now <= started) {
        return "? left";
      }
      double perStep = (now - started) / 1e9 / done;
      return clock(Math.round(perStep * (total - done))) + " left";
    }
  }

  /** Returns seconds as m:ss, or h:mm:ss from an hour on. */
  static String clock(long seconds) {
    long h = seconds / 3600;
    long m = seconds % 3600 / 60;
    long s = seconds % 60;
    return h > 0
        ? String.format(Locale.ROOT, "%d:%02d:%02d", h, m, s)
        : String.format(Locale.ROOT, "%d:%02d", m, s);
  }
}
