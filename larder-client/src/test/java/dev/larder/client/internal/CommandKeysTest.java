package dev.larder.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.csc.CacheKey;

class CommandKeysTest {
  private final CommandObjects commands = new CommandObjects();
  private final CommandKeys keys = new CommandKeys();

  @Test
  void equalCommandsHaveEqualBytes() {
    assertArrayEquals(
        keys.encode(new CacheKey<>(commands.hget("h", "f"))),
        keys.encode(new CacheKey<>(commands.hget("h", "f"))));
  }

  @Test
  void argumentsAndReplyBuildersTellCommandsApart() {
    byte[] getString = keys.encode(new CacheKey<>(commands.get("k")));
    byte[] getBytes =
        keys.encode(new CacheKey<>(commands.get("k".getBytes(StandardCharsets.UTF_8))));
    byte[] getOther = keys.encode(new CacheKey<>(commands.get("k2")));
    byte[] hgetSplit = keys.encode(new CacheKey<>(commands.hget("ab", "c")));
    byte[] hgetJoined = keys.encode(new CacheKey<>(commands.hget("a", "bc")));
    assertFalse(Arrays.equals(getString, getBytes), "same wire bytes, String and byte[] replies");
    assertFalse(Arrays.equals(getString, getOther));
    assertFalse(Arrays.equals(hgetSplit, hgetJoined), "arguments are length-prefixed");
  }

  /** The bytes give back a key equal to the one encoded, with the same Redis keys. */
  @Test
  void aKeyIsRebuiltEqualFromItsBytes() {
    byte[] raw = {1, 2, (byte) 0xff};
    for (CacheKey<?> key :
        List.<CacheKey<?>>of(
            new CacheKey<>(commands.get("k")),
            new CacheKey<>(commands.get(raw)),
            new CacheKey<>(commands.hget("h", "h")),
            new CacheKey<>(commands.mget("a", "b", "a")),
            new CacheKey<>(commands.lrange("l", 0, -1)),
            new CacheKey<>(commands.zrangeWithScores("z", 0, 5)),
            new CacheKey<>(commands.hgetAll(raw)),
            new CacheKey<>(commands.get("caf\u00e9")))) {
      CacheKey<?> rebuilt = keys.decode(keys.encode(key));
      assertEquals(key, rebuilt);
      assertEquals(key.hashCode(), rebuilt.hashCode());
      assertEquals(key.getRedisCommand(), rebuilt.getRedisCommand());
      assertEquals(
          Arrays.deepToString(CommandKeys.redisKeyBytes(key.getRedisKeys())),
          Arrays.deepToString(CommandKeys.redisKeyBytes(rebuilt.getRedisKeys())));
      for (int i = 0; i < key.getRedisKeys().size(); i++) {
        assertEquals(
            key.getRedisKeys().get(i).getClass(), rebuilt.getRedisKeys().get(i).getClass());
      }
    }
  }

  @Test
  void redisKeysAreBytesOrStrings() {
    byte[][] bytes = CommandKeys.redisKeyBytes(List.of("k", new byte[] {1}));
    assertArrayEquals(new byte[] {'k'}, bytes[0]);
    assertArrayEquals(new byte[] {1}, bytes[1]);
    assertNull(CommandKeys.redisKeyBytes(List.of("k", 5)));
  }
}
