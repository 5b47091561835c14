package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code close()} racing reads, iteration, writes, loads and {@code invalidateAll()} of off-heap
 * caches must never crash the JVM: child JVMs run {@link CloseRace} rounds ({@link
 * CloseRaceProgram}) and the test fails if one dies (an exit code other than 0, or a fatal error
 * log), breaks an invariant (exit 3), hangs, or runs too few rounds to have tested anything. When
 * pages were unmapped at close (after closing a shared arena), readers copying out of them crashed
 * these children with {@code SIGSEGV}: the test failed in 3 of 3 trials, after 36-86 s (and in 4 of
 * 5 with children of 60 s), on a 2-core machine shared with other builds (load average 17-27),
 * where a child runs 100-108 rounds in 80 s: each crash came within about 110 rounds.
 *
 * <p>The power is in rounds, not seconds, and a round's time varies ninefold with the machine's
 * load (100-108 rounds a child in 80 s at a load of 17-27, 886-948 in a run on a quieter machine).
 * So each child stops after {@value #DEFAULT_ROUNDS} rounds, over three times the rounds within
 * which every crash came, or after {@value #DEFAULT_SECONDS} s, whichever comes first: a loaded
 * machine races as long as before, a quiet one stops sooner, still with those rounds. {@code
 * -Dlarder.closeRace.rounds} and {@code -Dlarder.closeRace.seconds} change the two bounds (for a
 * long trial, raise both).
 */
class CloseRaceCrashTest {

  /** At most how long each child races; {@code -Dlarder.closeRace.seconds} changes it. */
  private static final int DEFAULT_SECONDS = 80;

  /** At most how many rounds each child runs; {@code -Dlarder.closeRace.rounds} changes it. */
  private static final int DEFAULT_ROUNDS = 400;

  private static final long SECONDS = Long.getLong("larder.closeRace.seconds", DEFAULT_SECONDS);
  private static final long ROUNDS = Long.getLong("larder.closeRace.rounds", DEFAULT_ROUNDS);
  private static final int CHILDREN = 3;
  private static final int MIN_ROUNDS = 20;

  @Test
  @Timeout(DEFAULT_SECONDS * 4)
  void closeRacingEveryCallNeverCrashesTheJvm(@TempDir Path dir) throws Exception {
    List<Process> children = new ArrayList<>();
    List<Path> outputs = new ArrayList<>();
    try {
      for (int i = 0; i < CHILDREN; i++) {
        Path output = dir.resolve("child-" + i + ".out");
        outputs.add(output);
        children.add(start(dir, output, i));
      }
      for (int i = 0; i < CHILDREN; i++) {
        check(children.get(i), outputs.get(i), dir);
      }
    } finally {
      children.forEach(Process::destroyForcibly);
    }
  }

  private static Process start(Path dir, Path output, int seed) throws IOException {
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "--enable-native-access=ALL-UNNAMED",
            "-XX:ErrorFile=" + dir.resolve("hs_err_pid%p.log"),
            "-XX:-CreateCoredumpOnCrash",
            "-cp",
            System.getProperty("java.class.path"),
            CloseRaceProgram.class.getName(),
            Long.toString(SECONDS),
            Long.toString(ROUNDS),
            Integer.toString(seed));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(output.toFile())
        .start();
  }

  private static void check(Process child, Path output, Path dir) throws Exception {
    if (!child.waitFor(SECONDS + 60, TimeUnit.SECONDS)) {
      child.destroyForcibly();
      fail(
          "a child racing close() for "
              + SECONDS
              + " s did not end within a minute more: "
              + tail(output));
    }
    List<Path> errorLogs;
    try (Stream<Path> files = Files.list(dir)) {
      errorLogs = files.filter(p -> p.getFileName().toString().startsWith("hs_err")).toList();
    }
    assertTrue(errorLogs.isEmpty(), () -> "the JVM crashed: " + errorLogs + "\n" + tail(output));
    assertEquals(
        0, child.exitValue(), () -> "child exit code " + child.exitValue() + ": " + tail(output));
    Matcher rounds = Pattern.compile("rounds=(\\d+)").matcher(tail(output));
    assertTrue(rounds.find(), () -> "no round count: " + tail(output));
    int count = Integer.parseInt(rounds.group(1));
    assertTrue(count >= MIN_ROUNDS, () -> "only " + count + " rounds: " + tail(output));
    System.out.println("CloseRaceProgram: " + tail(output).strip());
  }

  private static String tail(Path output) {
    try {
      String text = Files.readString(output, StandardCharsets.UTF_8);
      return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
    } catch (IOException e) {
      return "(no output: " + e + ")";
    }
  }
}
