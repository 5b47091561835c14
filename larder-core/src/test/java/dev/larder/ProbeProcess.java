package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a measuring program (a class with a {@code main} in the test sources) in a fresh JVM on this
 * test's class path, and reads the {@code key=value} pairs of the last line it prints. Fails the
 * calling test if the program does not end within its time, or ends with an error.
 */
final class ProbeProcess {

  private ProbeProcess() {}

  /**
   * Returns the pairs of its last line of output.
   *
   * @param main the program
   * @param flags the JVM's flags
   * @param seconds how long it may take
   * @param args its arguments
   */
  static Map<String, String> run(Class<?> main, List<String> flags, long seconds, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(flags);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    // read on another thread, so that a program that hangs cannot hold this one past its time
    FutureTask<String> output =
        new FutureTask<>(
            () -> new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    Thread.ofPlatform().daemon().start(output);
    boolean ended = process.waitFor(seconds, TimeUnit.SECONDS);
    if (!ended) {
      process.destroyForcibly();
    }
    String text;
    try {
      text = output.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      text = "(output lost: " + e + ")";
    }
    String printed = text;
    assertTrue(ended, () -> main.getSimpleName() + " timed out: " + printed);
    assertEquals(0, process.exitValue(), printed);
    System.out.println(main.getSimpleName() + " " + String.join(" ", args) + ": " + text.strip());
    Map<String, String> result = new HashMap<>();
    String last = text.strip().lines().reduce((a, b) -> b).orElse("");
    for (String pair : last.split(" ", -1)) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        result.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return result;
  }
}
