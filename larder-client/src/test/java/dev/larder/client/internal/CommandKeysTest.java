package dev.larder.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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

  @Test
  void redisKeysAreBytesOrStrings() {
    byte[][] bytes = CommandKeys.redisKeyBytes(List.of("k", new byte[] {1}));
    assertArrayEquals(new byte[] {'k'}, bytes[0]);
    assertArrayEquals(new byte[] {1}, bytes[1]);
    assertNull(CommandKeys.redisKeyBytes(List.of("k", 5)));
  }
}
