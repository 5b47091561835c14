package dev.larder.bench.measure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Reads the process's resident set size from {@code /proc/self/status} (Linux). The resident set
 * counts every page the process holds, on the heap or off it, including memory a library got from
 * {@code malloc} through JNA or a downcall, which native memory tracking cannot see.
 */
public final class ProcStatus {

  private static final Path STATUS = Path.of("/proc/self/status");

  private ProcStatus() {}

  /** Returns the current VmRSS in bytes, or empty where /proc is not available. */
  public static OptionalLong residentBytes() {
    if (!Files.isReadable(STATUS)) {
      return OptionalLong.empty();
    }
    try {
      return field(Files.readString(STATUS), "VmRSS");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The anonymous part of the resident set (RssAnon + RssShmem): the heap and everything a library
   * allocates, on or off the heap, without the file-backed pages (the JVM's code, the class-data
   * archive, jars) that the kernel may drop and read again under memory pressure from other
   * processes whatever the measured code does.
   *
   * @return the bytes, or empty where /proc or either field is not available
   */
  public static OptionalLong anonymousResidentBytes() {
    if (!Files.isReadable(STATUS)) {
      return OptionalLong.empty();
    }
    try {
      String status = Files.readString(STATUS);
      OptionalLong anon = field(status, "RssAnon");
      OptionalLong shmem = field(status, "RssShmem");
      return anon.isPresent() && shmem.isPresent()
          ? OptionalLong.of(anon.getAsLong() + shmem.getAsLong())
          : OptionalLong.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Extracts one field of a {@code /proc/PID/status} text, such as {@code "VmRSS: 123 kB"}.
   *
   * @param statusText the file's content
   * @param name the field name without its colon
   * @return the value in bytes (the file gives kB, meaning KiB), or empty if absent or malformed
   */
  public static OptionalLong field(String statusText, String name) {
    String prefix = name + ":";
    for (String line : statusText.split("\n", -1)) {
      if (line.startsWith(prefix)) {
        return parseKib(line.substring(prefix.length()).trim());
      }
    }
    return OptionalLong.empty();
  }

  private static OptionalLong parseKib(String value) {
    String[] parts = value.split("\\s+", -1);
    try {
      long number = Long.parseLong(parts[0]);
      if (parts.length > 1 && !parts[1].equalsIgnoreCase("kB")) {
        return OptionalLong.empty();
      }
      return OptionalLong.of(parts.length > 1 ? number * 1024 : number);
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }
}
