package dev.larder.bench.scenarios;

import dev.larder.bench.peer.BenchCache;
import dev.larder.model.Node;
import java.util.SplittableRandom;

/** Checks that a cache returns the nodes it was given, so that no figure rests on wrong data. */
final class Verification {

  private static final int SAMPLES = 200;

  private Verification() {}

  static void check(BenchCache<Long, Node> cache, NodeDatabase db, long nodes) {
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < SAMPLES; i++) {
      long id = random.nextLong(nodes);
      Node expected = db.load(id);
      Node actual = cache.get(id);
      if (!expected.equals(actual)) {
        throw new IllegalStateException("node " + id + " came back different: " + actual);
      }
    }
  }
}
