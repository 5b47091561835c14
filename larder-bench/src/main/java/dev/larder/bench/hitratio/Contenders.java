package dev.larder.bench.hitratio;

import java.util.List;
import java.util.Locale;

/** The implementations the hit-ratio benchmark compares, in column order. */
final class Contenders {

  private Contenders() {}

  static List<Contender> all() {
    return List.of(
        new LruContender(), new CaffeineContender(), new OptimalContender(), new LarderContender());
  }

  /** Returns the contender named {@code name} (case-insensitive). */
  static Contender named(String name) {
    for (Contender contender : all()) {
      if (contender.name().equalsIgnoreCase(name)) {
        return contender;
      }
    }
    throw new IllegalArgumentException("no implementation named " + name.toLowerCase(Locale.ROOT));
  }
}
