package dev.larder.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.scenario.Row;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServerBenchTest {
  private static Row row(String server, String test, int pipeline, double opsPerSec) {
    return Row.of(server)
        .put("tool", "redis-benchmark")
        .put("test", test)
        .put("pipeline", pipeline)
        .put("valueBytes", 100)
        .put("persistence", "off")
        .put("opsPerSec", opsPerSec);
  }

  /** Each Larder row gets its ops/s over Redis's for the same test and pipeline, in the trial. */
  @Test
  void larderRowsCarryTheirRatioToRedisForTheSameCell() {
    Row larderSet1 = row("Larder", "SET", 1, 80_000);
    Row larderSet16 = row("Larder", "SET", 16, 900_000);
    Row larderLpush = row("Larder", "LPUSH", 16, 1_000);
    Row redisSet1 = row("Redis", "SET", 1, 100_000);
    Row redisSet16 = row("Redis", "SET", 16, 600_000);
    ServerBench.addRatios(List.of(larderSet1, larderSet16, larderLpush, redisSet1, redisSet16));
    assertEquals(0.8, larderSet1.number("xRedis"), 1e-9);
    assertEquals(1.5, larderSet16.number("xRedis"), 1e-9);
    assertNull(larderLpush.get("xRedis"), "no Redis row for LPUSH");
    assertNull(redisSet1.get("xRedis"));
  }

  /** The tests run in redis-benchmark's order; only LRANGE runs start without the list. */
  @Test
  void redisBenchmarkTestsAreItsDefaults() {
    assertEquals(19, RedisBenchmarkTests.ALL.size());
    assertEquals(List.of("mylist"), RedisBenchmarkTests.keysToRemoveBefore("lrange_300"));
    assertEquals(List.of(), RedisBenchmarkTests.keysToRemoveBefore("lpush"));
    assertFalse(RedisBenchmarkTests.onCollection("mset"));
    assertTrue(RedisBenchmarkTests.onCollection("zpopmin"));
    // a filled list is for the tests that keep the list; every LRANGE test removes it first
    for (String test : RedisBenchmarkTests.ALL) {
      assertEquals(
          List.of("lpush", "rpush", "lpop", "rpop").contains(test),
          RedisBenchmarkTests.growsTheList(test),
          test);
      if (RedisBenchmarkTests.growsTheList(test)) {
        assertEquals(List.of(), RedisBenchmarkTests.keysToRemoveBefore(test), test);
      }
    }
  }
}
