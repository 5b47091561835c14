package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.util.KeyValue;

/**
 * Lists through Jedis against a real server: blocking timeouts on the server's clock, blocked
 * clients against pushers with the invariant that every pushed element is popped exactly once, and
 * a list brought back by a durable server's restart.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ListClientsTest {
  private static Jedis jedis(LarderServer server) {
    return new Jedis("127.0.0.1", server.respPort(), 30_000);
  }

  @Test
  void fractionalTimeoutsAnswerNilAfterTheirTime() throws Exception {
    try (LarderServer server = RunningServer.start();
        Jedis j = jedis(server)) {
      long start = System.nanoTime();
      assertNull(j.blpop(0.25, "none"));
      long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(elapsedMs >= 240, "returned after " + elapsedMs + " ms");
      assertNull(j.blmove("none", "dst", ListDirection.LEFT, ListDirection.RIGHT, 0.05));
      assertNull(j.blmpop(0.05, ListDirection.LEFT, "none", "other"));
      // The connection goes on after a timeout.
      assertEquals(1L, j.rpush("l", "v"));
      KeyValue<String, String> popped = j.brpop(0.05, "none", "l");
      assertEquals("l", popped.getKey());
      assertEquals("v", popped.getValue());
      assertEquals("0", blockedClients(j));
    }
  }

  private static String blockedClients(Jedis j) {
    for (String line : j.info("clients").split("\r\n", -1)) {
      if (line.startsWith("blocked_clients:")) {
        return line.substring(16);
      }
    }
    throw new AssertionError("no blocked_clients in INFO");
  }

  /**
   * Poppers blocked on three lists against pushers on several connections: every element pushed is
   * popped exactly once, none is left and none is lost.
   */
  @Test
  void blockedPoppersAgainstPushersLoseNothing() throws Exception {
    int pushers = 3;
    int perPusher = 200;
    int poppers = 6;
    String[] keys = {"q0", "q1", "q2"};
    try (LarderServer server = RunningServer.start()) {
      ExecutorService pool = Executors.newFixedThreadPool(pushers + poppers);
      try {
        Set<String> popped = ConcurrentHashMap.newKeySet();
        List<String> duplicates = new ArrayList<>();
        List<Future<?>> poppersDone = new ArrayList<>();
        for (int p = 0; p < poppers; p++) {
          int id = p;
          poppersDone.add(
              pool.submit(
                  () -> {
                    try (Jedis j = jedis(server)) {
                      while (true) {
                        KeyValue<String, String> kv =
                            id % 2 == 0 ? j.blpop(5.0, keys) : j.brpop(5.0, keys);
                        if (kv == null || kv.getValue().equals("stop")) {
                          return null;
                        }
                        if (!popped.add(kv.getValue())) {
                          synchronized (duplicates) {
                            duplicates.add(kv.getValue());
                          }
                        }
                      }
                    }
                  }));
        }
        List<Future<?>> pushersDone = new ArrayList<>();
        for (int p = 0; p < pushers; p++) {
          int id = p;
          pushersDone.add(
              pool.submit(
                  () -> {
                    try (Jedis j = jedis(server)) {
                      for (int i = 0; i < perPusher; i++) {
                        String key = keys[(id + i) % keys.length];
                        String element = id + ":" + i;
                        if (i % 3 == 0) {
                          j.lpush(key, element);
                        } else {
                          j.rpush(key, element);
                        }
                      }
                    }
                    return null;
                  }));
        }
        for (Future<?> f : pushersDone) {
          f.get(90, TimeUnit.SECONDS);
        }
        try (Jedis j = jedis(server)) {
          for (int p = 0; p < poppers; p++) {
            j.rpush(keys[p % keys.length], "stop");
          }
        }
        for (Future<?> f : poppersDone) {
          f.get(90, TimeUnit.SECONDS);
        }
        assertEquals(List.of(), duplicates, "popped twice");
        Set<String> expected = new HashSet<>();
        for (int p = 0; p < pushers; p++) {
          for (int i = 0; i < perPusher; i++) {
            expected.add(p + ":" + i);
          }
        }
        try (Jedis j = jedis(server)) {
          for (String key : keys) {
            // A popper may have stopped on another popper's stop: what is left is only stops.
            for (String left : j.lrange(key, 0, -1)) {
              assertEquals("stop", left, "left in " + key);
            }
          }
        }
        assertEquals(expected, popped);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void aListIsBroughtBackByARestart(@TempDir Path dir) throws Exception {
    List<String> elements = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      elements.add("element-" + i);
    }
    try (LarderServer server = RunningServer.start("dir", dir.toString());
        Jedis j = jedis(server)) {
      j.rpush("big", elements.toArray(String[]::new));
      j.lpush("small", "b", "a");
      j.lpop("big");
      j.lset("small", 1, "B");
      j.rpush("gone", "x");
      j.rpop("gone");
    }
    try (LarderServer server = RunningServer.start("dir", dir.toString());
        Jedis j = jedis(server)) {
      assertEquals(elements.subList(1, elements.size()), j.lrange("big", 0, -1));
      assertEquals(List.of("a", "B"), j.lrange("small", 0, -1));
      assertEquals("list", j.type("small"));
      assertEquals(0L, j.exists("gone") ? 1L : 0L);
    }
  }
}
