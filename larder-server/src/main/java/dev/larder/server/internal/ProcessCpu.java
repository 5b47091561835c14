package dev.larder.server.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time the server process has used, as INFO's cpu section reports it: on Linux the {@code
 * utime}, {@code stime}, {@code cutime} and {@code cstime} fields of {@code /proc/self/stat}, in
 * the kernel's user-visible clock ticks (USER_HZ, 100 a second on every Linux architecture the JVM
 * runs on). Elsewhere the figures are not known and {@link #read()} answers null.
 *
 * <p>Stateless and thread-safe.
 */
public final class ProcessCpu {
  private static final Path STAT = Path.of("/proc/self/stat");
  private static final double TICKS_PER_SECOND = 100.0;

  private ProcessCpu() {}

  /**
   * CPU seconds.
   *
   * @param user in user mode
   * @param system in the kernel
   * @param childrenUser children's, in user mode (waited-for children only)
   * @param childrenSystem children's, in the kernel
   */
  public record Times(double user, double system, double childrenUser, double childrenSystem) {}

  /** Returns the process's CPU times, or null where {@code /proc/self/stat} cannot be read. */
  public static Times read() {
    String line;
    try {
      line = Files.readString(STAT);
    } catch (IOException | UnsupportedOperationException e) {
      return null;
    }
    return parse(line);
  }

  /**
   * Returns the times of a {@code /proc/<pid>/stat} line, or null if it is not one.
   *
   * @param line the file's content
   */
  static Times parse(String line) {
    // The command name (field 2) is in parentheses and may hold spaces: count after its end.
    int end = line.lastIndexOf(')');
    if (end < 0) {
      return null;
    }
    String[] f = line.substring(end + 1).trim().split("\\s+", -1);
    // f[0] is field 3 (state), so field n is f[n - 3]: utime 14, stime 15, cutime 16, cstime 17.
    if (f.length < 15) {
      return null;
    }
    try {
      return new Times(ticks(f[11]), ticks(f[12]), ticks(f[13]), ticks(f[14]));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static double ticks(String field) {
    return Long.parseLong(field) / TICKS_PER_SECOND;
  }
}
