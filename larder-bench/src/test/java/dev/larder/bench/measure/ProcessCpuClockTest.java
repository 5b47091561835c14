package dev.larder.bench.measure;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The process's CPU time is read finer than the JDK's 10 ms ticks: the interleaved throughput run
 * divides each slice's operations by it.
 */
class ProcessCpuClockTest {

  @Test
  void advancesInStepsWellUnderAClockTickOnLinux() {
    assertTrue(
        ProcessCpuClock.precise() || !System.getProperty("os.name").contains("Linux"),
        "on Linux the kernel's clock should be read");
    long smallest = Long.MAX_VALUE;
    long previous = ProcessCpuClock.nanos();
    long end = System.nanoTime() + 200_000_000L;
    while (System.nanoTime() < end) {
      long now = ProcessCpuClock.nanos();
      assertTrue(now >= previous, "went back from " + previous + " to " + now);
      if (now > previous) {
        smallest = Math.min(smallest, now - previous);
      }
      previous = now;
    }
    if (ProcessCpuClock.precise()) {
      assertTrue(smallest < 1_000_000L, "smallest step " + smallest + " ns: clock ticks?");
    }
  }
}
