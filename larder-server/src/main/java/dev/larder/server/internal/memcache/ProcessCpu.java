package dev.larder.server.internal.memcache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The server process's CPU time split into user and system time, for {@code stats}'s {@code
 * rusage_user} and {@code rusage_system}: read from {@code /proc/self/stat} where there is one
 * (Linux); elsewhere the JVM's total CPU time is reported as user time and system time as 0.
 * Stateless; thread-safe.
 */
final class ProcessCpu {
  private static final Path STAT = Path.of("/proc/self/stat");

  /** Linux's USER_HZ, the unit of /proc's times, on every architecture Larder runs on. */
  private static final long TICKS_PER_SECOND = 100;

  private ProcessCpu() {}

  /** Returns {user, system} CPU time in microseconds. */
  static long[] userAndSystemMicros() {
    try {
      String line = Files.readString(STAT, StandardCharsets.US_ASCII);
      // the command name is in parentheses and may hold spaces: fields count from after it
      String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ", -1);
      long perTick = 1_000_000 / TICKS_PER_SECOND;
      return new long[] {Long.parseLong(f[11]) * perTick, Long.parseLong(f[12]) * perTick};
    } catch (IOException | RuntimeException e) {
      long total =
          ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos() / 1000).orElse(0L);
      return new long[] {total, 0};
    }
  }

  /** Formats microseconds as memcached does: seconds with six decimals. */
  static String seconds(long micros) {
    return micros / 1_000_000 + "." + String.format("%06d", micros % 1_000_000);
  }
}
