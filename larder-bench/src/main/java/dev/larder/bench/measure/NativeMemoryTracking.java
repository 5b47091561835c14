package dev.larder.bench.measure;

import java.lang.management.ManagementFactory;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * Reads the JVM's native memory tracking summary (the JVM must run with {@code
 * -XX:NativeMemoryTracking=summary}) through the diagnostic-command MBean, the same data {@code
 * jcmd PID VM.native_memory summary} prints. NMT sees the heap, metaspace, threads, code and {@code
 * Arena}/{@code MemorySegment} allocations, but not memory a library mallocs through JNA or a
 * foreign downcall.
 */
public final class NativeMemoryTracking {

  private static final Pattern TOTAL =
      Pattern.compile("Total:\\s*reserved=(\\d+)(KB|MB|GB|B)?,\\s*committed=(\\d+)(KB|MB|GB|B)?");

  private NativeMemoryTracking() {}

  /** Returns NMT's total committed bytes, or empty if tracking is off or unavailable. */
  public static OptionalLong committedBytes() {
    try {
      ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
      Object out =
          ManagementFactory.getPlatformMBeanServer()
              .invoke(
                  name,
                  "vmNativeMemory",
                  new Object[] {new String[] {"summary", "scale=KB"}},
                  new String[] {String[].class.getName()});
      return parseTotalCommitted(String.valueOf(out));
    } catch (JMException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * Returns memory freed by {@code malloc} users to the operating system, as {@code jcmd PID
   * System.trim_native_heap} does (glibc only; elsewhere it does nothing).
   */
  public static void trimNativeHeap() {
    try {
      ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
      ManagementFactory.getPlatformMBeanServer()
          .invoke(
              name,
              "systemTrimNativeHeap",
              new Object[] {new String[0]},
              new String[] {String[].class.getName()});
    } catch (JMException | RuntimeException e) {
      // Not supported on this platform: the resident set is then read untrimmed.
    }
  }

  /**
   * Returns the committed total in bytes, or empty if the text has no total line.
   *
   * @param summary the text of an NMT summary report
   */
  public static OptionalLong parseTotalCommitted(String summary) {
    Matcher m = TOTAL.matcher(summary);
    if (!m.find()) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(Long.parseLong(m.group(3)) * scale(m.group(4)));
  }

  private static long scale(String unit) {
    if (unit == null) {
      return 1;
    }
    return switch (unit) {
      case "KB" -> 1L << 10;
      case "MB" -> 1L << 20;
      case "GB" -> 1L << 30;
      default -> 1;
    };
  }
}
