package dev.larder;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code close()} racing reads, iteration, writes, loads and {@code invalidateAll()}, in this JVM,
 * in both storage modes and both cache shapes: every call completes or throws {@link
 * IllegalStateException} (and only once close has begun), every value read is whole and its key's,
 * and after close every call throws (see {@link CloseRace}). Off heap, a race that reached unmapped
 * memory would crash this JVM; {@link CloseRaceCrashTest} runs the race in child JVMs long enough
 * to catch that.
 */
class CloseRaceTest {

  private static final long RUN_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);

  @ParameterizedTest
  @CsvSource({"OFF_HEAP, false", "OFF_HEAP, true", "HEAP, false", "HEAP, true"})
  @Timeout(120)
  void callsRacingCloseCompleteOrThrowIllegalState(Storage storage, boolean oneSegment)
      throws InterruptedException {
    CloseRace race = new CloseRace(storage, oneSegment, 42);
    long deadline = System.nanoTime() + RUN_NANOS;
    int rounds = 0;
    while ((System.nanoTime() < deadline || rounds < 10) && race.failures().isEmpty()) {
      race.round();
      rounds++;
    }
    assertTrue(race.failures().isEmpty(), () -> "failures: " + race.failures());
    assertTrue(race.valuesRead() > 0, "no value was read while racing close()");
  }
}
