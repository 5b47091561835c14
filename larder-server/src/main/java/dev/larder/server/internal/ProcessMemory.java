package dev.larder.server.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The server process's resident memory, as INFO's {@code used_memory_rss} reports it: on Linux the
 * {@code VmRSS} line of {@code /proc/self/status} (what the kernel holds in RAM for the process:
 * heap, off-heap store, network buffers, code); elsewhere, where that file does not exist, the
 * JVM's committed heap, a lower bound.
 *
 * <p>Stateless and thread-safe.
 */
public final class ProcessMemory {
  private static final Path STATUS = Path.of("/proc/self/status");

  private ProcessMemory() {}

  /** Returns resident bytes of this process. */
  public static long residentBytes() {
    try {
      for (String line : Files.readAllLines(STATUS)) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.substring(6).replace("kB", "").strip()) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux (or no procfs): the fallback below.
    }
    return Runtime.getRuntime().totalMemory();
  }
}
