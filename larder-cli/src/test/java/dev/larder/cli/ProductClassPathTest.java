package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The product's command carries the product only: none of the benchmark suite, its peer caches or
 * JMH is on larder-cli's class path (its tests see what its runtime sees, plus JUnit).
 */
class ProductClassPathTest {

  @Test
  void noBenchmarkSuitePeerOrJmhIsOnTheClassPath() {
    String[] labClasses = {
      "dev.larder.bench.BenchCommand",
      "dev.larder.bench.scenario.Scenario",
      "org.openjdk.jmh.annotations.Benchmark",
      "com.github.benmanes.caffeine.cache.Caffeine",
      "org.ehcache.Cache",
      "org.infinispan.Cache",
      "net.openhft.chronicle.map.ChronicleMap",
      "org.caffinitas.ohc.OHCache",
      "org.h2.mvstore.MVStore",
      "jetbrains.exodus.env.Environment",
      "org.knowm.xchart.XYChart",
      "dev.larder.wal.testing.SimulatedDisk"
    };
    for (String name : labClasses) {
      assertThrows(ClassNotFoundException.class, () -> Class.forName(name), name);
    }
  }
}
