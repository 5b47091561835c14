package dev.larder.bench.hitratio;

import java.util.List;

/** The implementations the hit-ratio benchmark compares, in column order. */
final class Contenders {

  private Contenders() {}

  static List<Contender> all() {
    return List.of(new LruContender(), new CaffeineContender(), new OptimalContender(),
        new LarderContender());
  }
}
