package dev.larder.bench.harness;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Describes where a run happened: JVM, machine, commit and time, for the result files. */
final class Environment {

  private Environment() {}

  /** Returns the JVM's vendor, name and version. */
  static String jvm() {
    return System.getProperty("java.vm.vendor")
        + " "
        + System.getProperty("java.vm.name")
        + " "
        + System.getProperty("java.vm.version");
  }

  /** Returns CPU model, cores, memory and OS. */
  static Map<String, Object> machine() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cpu", cpuModel());
    m.put("cores", Runtime.getRuntime().availableProcessors());
    m.put("memoryBytes", totalMemory());
    m.put(
        "os",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
    return m;
  }

  /** Returns the current time, to the second. */
  static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** Returns the abbreviated commit of the working directory, with "+dirty" if it has changes. */
  static String commit() {
    String head = git("rev-parse", "--short=12", "HEAD");
    if (head.isEmpty()) {
      return "unknown";
    }
    String status = git("status", "--porcelain", "--untracked-files=no");
    return status.isEmpty() ? head : head + "+dirty";
  }

  private static String git(String... args) {
    String[] cmd = new String[args.length + 1];
    cmd[0] = "git";
    System.arraycopy(args, 0, cmd, 1, args.length);
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        return "";
      }
      return out;
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux, or /proc not readable: the architecture is the best we can say.
    }
    return System.getProperty("os.arch");
  }

  private static long totalMemory() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getTotalMemorySize();
    }
    return -1;
  }
}
