package dev.larder.bench.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ZipfSamplerTest {

  @Test
  void staysInRangeAndFavoursLowRanks() {
    ZipfSampler zipf = new ZipfSampler(1_000, 0.99);
    SplittableRandom random = new SplittableRandom(1);
    int[] counts = new int[1_000];
    for (int i = 0; i < 100_000; i++) {
      counts[zipf.next(random)]++;
    }
    assertTrue(counts[0] > counts[1] && counts[1] > counts[10] && counts[10] > counts[500]);
  }

  @Test
  void exponentZeroIsRoughlyUniform() {
    ZipfSampler uniform = new ZipfSampler(10, 0);
    SplittableRandom random = new SplittableRandom(2);
    int[] counts = new int[10];
    for (int i = 0; i < 100_000; i++) {
      counts[uniform.next(random)]++;
    }
    for (int c : counts) {
      assertEquals(10_000, c, 600);
    }
  }
}
