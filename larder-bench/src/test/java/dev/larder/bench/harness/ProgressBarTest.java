package dev.larder.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.scenario.ProgressCount;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The progress display's output off a terminal (plain lines) and on one (a redrawn line). */
class ProgressBarTest {

  /** A clock the test moves by hand. */
  private static final class Clock {
    long nanos = 1_000_000_000L;

    void advanceSeconds(double seconds) {
      nanos += (long) (seconds * 1e9);
    }
  }

  private static List<String> lines(ByteArrayOutputStream bytes) {
    return List.of(bytes.toString(StandardCharsets.UTF_8).split("\n", -1));
  }

  @Test
  void plainLinesCarryCountRateAndTimeLeftAndAreThrottled() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Clock clock = new Clock();
    ProgressBar bar =
        new ProgressBar(
            new PrintStream(bytes, true, StandardCharsets.UTF_8), false, () -> clock.nanos);
    ProgressBar.Task task = bar.start("crash always kills", 40);
    assertEquals("", bytes.toString(StandardCharsets.UTF_8), "starting prints nothing");

    clock.advanceSeconds(30);
    task.update(12, "0 lost");
    clock.advanceSeconds(2);
    task.update(13, "0 lost"); // within 10 s of the last line: not printed
    bar.message("a message line");
    clock.advanceSeconds(8);
    task.update(16, "0 lost"); // 10 s after the last line
    clock.advanceSeconds(1);
    task.update(17);
    clock.advanceSeconds(3 * 60 + 7);
    task.update(40, "1 lost"); // complete: always printed
    bar.close();

    assertEquals(
        List.of(
            "crash always kills: 12/40 (30%), 24.0/min, 1:10 left, 0 lost",
            "a message line",
            "crash always kills: 16/40 (40%), 24.0/min, 1:00 left, 0 lost",
            "crash always kills: 40/40 (100%), 10.5/min, done in 3:48, 1 lost",
            ""),
        lines(bytes));
    assertFalse(bytes.toString(StandardCharsets.UTF_8).contains("\r"), "no terminal controls");
  }

  @Test
  void plainLinesOfSeveralTasksAndUnknowns() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Clock clock = new Clock();
    ProgressBar bar =
        new ProgressBar(
            new PrintStream(bytes, true, StandardCharsets.UTF_8), false, () -> clock.nanos);
    ProgressBar.Task all = bar.start("crash trials", 3);
    ProgressBar.Task loading = bar.start("loading", 1_000_000);
    all.update(1); // not shown: another task is
    loading.update(0);
    clock.advanceSeconds(7_200);
    loading.update(500_000);
    bar.show(all);
    clock.advanceSeconds(10);
    all.update(2);
    assertEquals(
        List.of(
            "loading: 0/1000000 (0%), ?/s, ? left",
            "loading: 500000/1000000 (50%), 69.44/s, 2:00:00 left",
            "crash trials: 2/3 (66%), 1.0/h, 1:00:05 left",
            ""),
        lines(bytes));
    assertThrows(IllegalArgumentException.class, () -> bar.start("nothing", 0));

    // A task that began before its first count: the rate counts from its beginning.
    ProgressBar.Task kills = bar.start("kills", 10, clock.nanos - 20_000_000_000L);
    kills.update(1, "0 lost");
    assertEquals(
        "kills: 1/10 (10%), 3.0/min, 3:00 left, 0 lost", lines(bytes).get(lines(bytes).size() - 2));
  }

  @Test
  void onATerminalOneLineIsRedrawnBelowTheMessages() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Clock clock = new Clock();
    ProgressBar bar =
        new ProgressBar(
            new PrintStream(bytes, true, StandardCharsets.UTF_8), true, () -> clock.nanos);
    ProgressBar.Task task = bar.start("kills", 4);
    clock.advanceSeconds(2);
    task.update(1);
    bar.message("between");
    clock.advanceSeconds(2);
    task.update(4);
    clock.advanceSeconds(5);
    bar.show(task); // a completed task keeps its rate and duration
    bar.close();
    bar.message("after"); // no bar after close
    String out = bytes.toString(StandardCharsets.UTF_8);
    String erase = "\033[K";
    assertEquals(
        "\rkills [........................] 0/4  0%  ?/s  ? left"
            + erase
            + "\rkills [######..................] 1/4  25%  30.0/min  0:06 left"
            + erase
            + "\r"
            + erase
            + "between\n"
            + "\rkills [######..................] 1/4  25%  30.0/min  0:06 left"
            + erase
            + "\rkills [########################] 4/4  100%  1.00/s  done in 0:04"
            + erase
            + "\rkills [########################] 4/4  100%  1.00/s  done in 0:04"
            + erase
            + "\r"
            + erase
            + "after\n",
        out);
  }

  @Test
  void countsTravelAsProgressMessages() {
    ProgressCount c = new ProgressCount("always: kills", 12, 40, "0 lost");
    assertEquals("#count 12/40 always: kills | 0 lost", c.encode());
    assertEquals(Optional.of(c), ProgressCount.parse(c.encode()));
    ProgressCount plain = new ProgressCount("loading", 5, 9, "");
    assertEquals(Optional.of(plain), ProgressCount.parse(plain.encode()));
    assertEquals(Optional.empty(), ProgressCount.parse("loaded 300 / 1,000"));
    assertEquals(Optional.empty(), ProgressCount.parse("#count x/y z"));
    assertEquals(Optional.empty(), ProgressCount.parse("#count 9/5 more done than all"));
    assertThrows(IllegalArgumentException.class, () -> new ProgressCount("a | b", 1, 2, ""));
    assertTrue(ProgressCount.parse("#count 1/2 x").isPresent());
  }
}
