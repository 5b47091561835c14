package dev.larder;

import java.util.concurrent.TimeUnit;

/**
 * {@link CloseRace} rounds with off-heap caches, until a number of rounds is done or a number of
 * seconds has passed, whichever comes first, in a JVM of its own, for {@link CloseRaceCrashTest}: a
 * race that touches unmapped memory kills this JVM, not the test's. Prints {@code rounds=N
 * values=M} and exits 0 if every round kept its invariants; prints the failures and exits 3
 * otherwise.
 */
final class CloseRaceProgram {

  private CloseRaceProgram() {}

  /**
   * Runs the close race and exits.
   *
   * @param args the most seconds to run, the most rounds, and a seed
   */
  public static void main(String[] args) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[0]));
    long maxRounds = Long.parseLong(args[1]);
    CloseRace race = new CloseRace(Storage.OFF_HEAP, false, Long.parseLong(args[2]));
    CloseRace oneSegment = new CloseRace(Storage.OFF_HEAP, true, Long.parseLong(args[2]) + 1);
    int rounds = 0;
    while (System.nanoTime() < deadline
        && rounds < maxRounds
        && race.failures().isEmpty()
        && oneSegment.failures().isEmpty()) {
      // One round in four with a one-segment cache: the split is not what makes the race.
      (rounds % 4 == 3 ? oneSegment : race).round();
      rounds++;
    }
    if (!race.failures().isEmpty() || !oneSegment.failures().isEmpty()) {
      race.failures().addAll(oneSegment.failures());
      for (Throwable failure : race.failures()) {
        failure.printStackTrace(System.out);
      }
      System.out.flush();
      System.exit(3);
    }
    System.out.println(
        "rounds=" + rounds + " values=" + (race.valuesRead() + oneSegment.valuesRead()));
  }
}
