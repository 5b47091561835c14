package dev.larder.bench.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class StatsTest {

  @Test
  void medianOfOddCountIsTheMiddleValue() {
    Stats s = Stats.of(5, 1, 3);
    assertEquals(3, s.median());
    assertEquals(1, s.min());
    assertEquals(5, s.max());
    assertEquals(3, s.count());
  }

  @Test
  void medianOfEvenCountIsTheMeanOfTheMiddleTwo() {
    assertEquals(2.5, Stats.of(4, 1, 3, 2).median());
  }

  @Test
  void relativeSpreadIsRangeOverMedian() {
    assertEquals(0.5, Stats.of(90, 100, 140).relativeSpread(), 1e-12);
    assertEquals(0, Stats.of(0, 0, 0).relativeSpread());
  }

  @Test
  void doesNotReorderTheCallersArray() {
    double[] samples = {3, 1, 2};
    Stats.of(samples);
    assertEquals(3, samples[0]);
  }

  @Test
  void rejectsEmptyAndNonFiniteInput() {
    assertThrows(IllegalArgumentException.class, Stats::of);
    assertThrows(IllegalArgumentException.class, () -> Stats.of(1, Double.NaN));
  }
}
