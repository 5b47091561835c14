package dev.larder.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.bench.scenario.Row;
import java.util.List;
import org.junit.jupiter.api.Test;

class CollectionMemoryBenchTest {

  @Test
  void commandsAddTheSameElementsToEveryServer() {
    assertEquals(
        List.of("RPUSH", "k", "element:2", "element:3"),
        CollectionLoader.command("list", "k", 2, 4));
    assertEquals(List.of("SADD", "k", "0", "1"), CollectionLoader.command("set-int", "k", 0, 2));
    assertEquals(List.of("SADD", "k", "member:0"), CollectionLoader.command("set", "k", 0, 1));
    assertEquals(
        List.of("ZADD", "k", "5", "member:5"), CollectionLoader.command("zset", "k", 5, 6));
    assertEquals(
        List.of("HSET", "k", "field:0", "value:0"), CollectionLoader.command("hash", "k", 0, 1));
    assertThrows(IllegalArgumentException.class, () -> CollectionLoader.command("x", "k", 0, 1));
  }

  @Test
  void larderRowsGetTheirRatioToRedisForTheSameTypeAndShape() {
    Row larderSmall = Row.of("Larder").put("type", "set").put("shape", "small");
    larderSmall.put("bytesPerElement", 30.0);
    Row larderLarge = Row.of("Larder").put("type", "set").put("shape", "large");
    larderLarge.put("bytesPerElement", 10.0);
    Row redisSmall = Row.of("Redis").put("type", "set").put("shape", "small");
    redisSmall.put("bytesPerElement", 60.0);
    CollectionMemoryBench.addRatios(List.of(larderSmall, larderLarge, redisSmall));
    assertEquals(0.5, larderSmall.number("xRedis"));
    assertFalse(larderLarge.fields().containsKey("xRedis"), "no Redis row for it");
    assertFalse(redisSmall.fields().containsKey("xRedis"));
    assertFalse(larderSmall.fields().containsKey("xRedisFill"), "no fill times given");
  }

  @Test
  void larderRowsGetTheirFillTimeRatioToRedis() {
    Row larder = Row.of("Larder").put("type", "zset").put("shape", "large");
    larder.put("bytesPerElement", 30.0).put("fillSeconds", 6.0);
    Row redis = Row.of("Redis").put("type", "zset").put("shape", "large");
    redis.put("bytesPerElement", 15.0).put("fillSeconds", 2.0);
    CollectionMemoryBench.addRatios(List.of(larder, redis));
    assertEquals(2.0, larder.number("xRedis"));
    assertEquals(3.0, larder.number("xRedisFill"));
  }
}
