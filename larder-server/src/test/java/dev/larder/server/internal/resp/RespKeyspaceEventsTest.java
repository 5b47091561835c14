package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespClients.keyspaceEvents;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Keyspace notifications: the events of each command, the classes, expiry and eviction. */
class RespKeyspaceEventsTest {

  @Test
  void commandsPublishRedisEventNames() {
    try (TestServer server = new TestServer(Map.of("notify-keyspace-events", "KEA"))) {
      TestServer.Connection sub = server.resp();
      TestServer.Connection c = server.resp();
      sub.cmd("PSUBSCRIBE", "__key*__:*");
      c.cmd("SET", "s", "1", "EX", "100");
      c.cmd("INCR", "s");
      c.cmd("APPEND", "s", "x");
      c.cmd("DEL", "s", "missing");
      c.cmd("HSET", "h", "f", "v");
      c.cmd("HDEL", "h", "f");
      c.cmd("SET", "r", "v");
      c.cmd("RENAME", "r", "r2");
      c.cmd("EXPIRE", "r2", "50");
      c.cmd("PERSIST", "r2");
      c.cmd("EXPIRE", "r2", "-1");
      assertEquals(
          List.of(
              "__keyspace@0__:s set",
              "__keyevent@0__:set s",
              "__keyspace@0__:s expire",
              "__keyevent@0__:expire s",
              "__keyspace@0__:s incrby",
              "__keyevent@0__:incrby s",
              "__keyspace@0__:s append",
              "__keyevent@0__:append s",
              "__keyspace@0__:s del",
              "__keyevent@0__:del s",
              "__keyspace@0__:h hset",
              "__keyevent@0__:hset h",
              "__keyspace@0__:h hdel",
              "__keyevent@0__:hdel h",
              "__keyspace@0__:h del",
              "__keyevent@0__:del h",
              "__keyspace@0__:r set",
              "__keyevent@0__:set r",
              "__keyspace@0__:r rename_from",
              "__keyevent@0__:rename_from r",
              "__keyspace@0__:r2 rename_to",
              "__keyevent@0__:rename_to r2",
              "__keyspace@0__:r2 expire",
              "__keyevent@0__:expire r2",
              "__keyspace@0__:r2 persist",
              "__keyevent@0__:persist r2",
              "__keyspace@0__:r2 del",
              "__keyevent@0__:del r2"),
          keyspaceEvents(sub.read()));
    }
  }

  /**
   * Class n: a write that makes its key publishes {@code new} before the command's own events (a
   * blind SET, a read-modify-write, a key made again after it expired, RENAME's destination before
   * the source's event), an overwrite does not; the sequence redis-server 7.0.15 publishes.
   */
  @Test
  void madeKeysPublishNewFirst() {
    try (TestServer server = new TestServer(Map.of("notify-keyspace-events", "KEAn"))) {
      TestServer.Connection sub = server.resp();
      TestServer.Connection c = server.resp();
      sub.cmd("PSUBSCRIBE", "__key*__:*");
      c.cmd("SET", "k1", "a");
      c.cmd("SET", "k1", "b");
      c.cmd("HSET", "h", "f", "v");
      c.cmd("INCR", "n");
      c.cmd("SET", "x", "1", "PX", "1");
      server.now.addAndGet(10);
      c.cmd("SET", "x", "2");
      c.cmd("RENAME", "k1", "k2");
      assertEquals(
          List.of(
              "__keyspace@0__:k1 new",
              "__keyevent@0__:new k1",
              "__keyspace@0__:k1 set",
              "__keyevent@0__:set k1",
              "__keyspace@0__:k1 set",
              "__keyevent@0__:set k1",
              "__keyspace@0__:h new",
              "__keyevent@0__:new h",
              "__keyspace@0__:h hset",
              "__keyevent@0__:hset h",
              "__keyspace@0__:n new",
              "__keyevent@0__:new n",
              "__keyspace@0__:n incrby",
              "__keyevent@0__:incrby n",
              "__keyspace@0__:x new",
              "__keyevent@0__:new x",
              "__keyspace@0__:x set",
              "__keyevent@0__:set x",
              "__keyspace@0__:x expire",
              "__keyevent@0__:expire x",
              "__keyspace@0__:x expired",
              "__keyevent@0__:expired x",
              "__keyspace@0__:x new",
              "__keyevent@0__:new x",
              "__keyspace@0__:x set",
              "__keyevent@0__:set x",
              "__keyspace@0__:k2 new",
              "__keyevent@0__:new k2",
              "__keyspace@0__:k1 rename_from",
              "__keyevent@0__:rename_from k1",
              "__keyspace@0__:k2 rename_to",
              "__keyevent@0__:rename_to k2"),
          keyspaceEvents(sub.read()));
      // Without n (A leaves it out, as Redis's does) a new key publishes its command's event only.
      c.cmd("CONFIG", "SET", "notify-keyspace-events", "EA");
      c.cmd("SET", "k3", "v");
      assertEquals(List.of("__keyevent@0__:set k3"), keyspaceEvents(sub.read()));
    }
  }

  @Test
  void classesMaskEventsAndKorEChooseTheChannels() {
    try (TestServer server = new TestServer(Map.of("notify-keyspace-events", "Kh"))) {
      TestServer.Connection sub = server.resp();
      TestServer.Connection c = server.resp();
      sub.cmd("PSUBSCRIBE", "*");
      c.cmd("SELECT", "3");
      c.cmd("SET", "s", "1");
      c.cmd("HSET", "h", "f", "v");
      assertEquals(List.of("__keyspace@3__:h hset"), keyspaceEvents(sub.read()));
      c.cmd("CONFIG", "SET", "notify-keyspace-events", "");
      c.cmd("HSET", "h", "g", "v");
      assertEquals(List.of(), keyspaceEvents(sub.read()));
    }
  }

  @Test
  void expiredKeysFoundByReadsAndBySweepAreExpiredEvents() {
    try (TestServer server = new TestServer(Map.of("notify-keyspace-events", "Ex"))) {
      TestServer.Connection sub = server.resp();
      TestServer.Connection c = server.resp();
      sub.cmd("PSUBSCRIBE", "*");
      c.cmd("SET", "a", "1", "PX", "10");
      c.cmd("SET", "b", "1", "PX", "10");
      server.now.addAndGet(20);
      assertEquals("$-1\r\n", c.cmd("GET", "a"));
      assertEquals(List.of("__keyevent@0__:expired a"), keyspaceEvents(sub.read()));
      assertEquals(1, server.keyspace.sweepExpired(100));
      assertEquals(List.of("__keyevent@0__:expired b"), keyspaceEvents(sub.read()));
    }
  }

  @Test
  void evictedKeysAreEvictedEvents() {
    try (TestServer server =
        new TestServer(Map.of("notify-keyspace-events", "Ee", "maxmemory", "1mb"))) {
      TestServer.Connection sub = server.resp();
      TestServer.Connection c = server.resp();
      sub.cmd("SUBSCRIBE", "__keyevent@0__:evicted");
      String value = "v".repeat(1000);
      for (int i = 0; i < 3000; i++) {
        c.cmd("SET", "key:" + i, value);
      }
      String out = sub.read();
      long evicted = server.keyspace.stats()[3];
      assertTrue(evicted > 0, "3 MB into 1 MB evicts");
      assertEquals(evicted, out.split("\\$7\r\nmessage").length - 1, out.length() + " bytes");
      assertTrue(out.contains("$22\r\n__keyevent@0__:evicted\r\n$"));
    }
  }

  /**
   * The keyspace's one observer reaches all its listeners: one push serves a blocked client, is
   * published as an event and invalidates a tracked key.
   */
  @Test
  void oneWriteReachesBlockedClientsNotificationsAndTracking() {
    try (TestServer server = new TestServer(Map.of("notify-keyspace-events", "KEA"))) {
      TestServer.Connection sub = server.resp();
      TestServer.Connection tracker = server.resp();
      TestServer.Connection blocked = server.resp();
      TestServer.Connection writer = server.resp();
      sub.cmd("PSUBSCRIBE", "__keyevent@0__:*");
      tracker.cmd("HELLO", "3");
      tracker.cmd("CLIENT", "TRACKING", "ON");
      tracker.cmd("LLEN", "q");
      assertEquals("", blocked.cmd("BLPOP", "q", "0"));
      assertEquals(":1\r\n", writer.cmd("RPUSH", "q", "v"));
      assertEquals("*2\r\n$1\r\nq\r\n$1\r\nv\r\n", blocked.read());
      assertEquals(">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nq\r\n", tracker.read());
      assertEquals("__keyevent@0__:rpush q", keyspaceEvents(sub.read()).getFirst());
    }
  }

  /**
   * A push that serves a blocked client publishes the push, then the serving pop's own events as
   * Redis 7.0 does (lpop, rpop, zpopmin, zpopmax; LMOVE's push on the destination before its pop
   * from the source; del when the pop empties the key), and invalidates the keys it wrote for a
   * tracking client.
   */
  @Test
  void servingABlockedClientPublishesThePopsEvents() {
    try (TestServer server = new TestServer(Map.of("notify-keyspace-events", "KEA"))) {
      TestServer.Connection sub = server.resp();
      TestServer.Connection tracker = server.resp();
      TestServer.Connection blocked = server.resp();
      TestServer.Connection writer = server.resp();
      sub.cmd("PSUBSCRIBE", "__keyevent@0__:*");
      tracker.cmd("HELLO", "3");
      tracker.cmd("CLIENT", "TRACKING", "ON");
      tracker.cmd("LLEN", "q");
      assertEquals("", blocked.cmd("BRPOP", "q", "0"));
      writer.cmd("RPUSH", "q", "a", "b");
      assertEquals("*2\r\n$1\r\nq\r\n$1\r\nb\r\n", blocked.read());
      assertEquals(
          List.of("__keyevent@0__:rpush q", "__keyevent@0__:rpop q"), keyspaceEvents(sub.read()));
      assertTrue(tracker.read().contains("invalidate"));
      writer.cmd("RPOP", "q");
      sub.read();
      tracker.cmd("LLEN", "q");
      assertEquals("", blocked.cmd("BLPOP", "q", "0"));
      writer.cmd("LPUSH", "q", "c");
      assertEquals("*2\r\n$1\r\nq\r\n$1\r\nc\r\n", blocked.read());
      assertEquals(
          List.of("__keyevent@0__:lpush q", "__keyevent@0__:lpop q", "__keyevent@0__:del q"),
          keyspaceEvents(sub.read()));
      tracker.read();
      tracker.cmd("LLEN", "dst");
      assertEquals("", blocked.cmd("BLMOVE", "src", "dst", "RIGHT", "LEFT", "0"));
      writer.cmd("RPUSH", "src", "x");
      assertEquals("$1\r\nx\r\n", blocked.read());
      assertEquals(
          List.of(
              "__keyevent@0__:rpush src",
              "__keyevent@0__:lpush dst",
              "__keyevent@0__:rpop src",
              "__keyevent@0__:del src"),
          keyspaceEvents(sub.read()));
      assertTrue(tracker.read().contains("$3\r\ndst\r\n"), "the destination is invalidated");

      assertEquals("", blocked.cmd("BLMPOP", "0", "1", "m", "LEFT", "COUNT", "2"));
      writer.cmd("RPUSH", "m", "1", "2", "3");
      blocked.read();
      assertEquals(
          List.of("__keyevent@0__:rpush m", "__keyevent@0__:lpop m"), keyspaceEvents(sub.read()));

      assertEquals("", blocked.cmd("BZPOPMAX", "z", "0"));
      writer.cmd("ZADD", "z", "1", "a", "2", "b");
      blocked.read();
      assertEquals(
          List.of("__keyevent@0__:zadd z", "__keyevent@0__:zpopmax z"), keyspaceEvents(sub.read()));
      assertEquals("", blocked.cmd("BZMPOP", "0", "1", "y", "MIN", "COUNT", "5"));
      writer.cmd("ZADD", "y", "1", "a");
      blocked.read();
      assertEquals(
          List.of("__keyevent@0__:zadd y", "__keyevent@0__:zpopmin y", "__keyevent@0__:del y"),
          keyspaceEvents(sub.read()));
    }
  }

  /** Popping commands that do not block publish Redis's pop and push events, not their names. */
  @Test
  void popsAndMovesThatDoNotBlockPublishRedisEventNames() {
    try (TestServer server = new TestServer(Map.of("notify-keyspace-events", "KEA"))) {
      TestServer.Connection sub = server.resp();
      TestServer.Connection c = server.resp();
      c.cmd("RPUSH", "q", "a", "b", "c", "d", "e");
      c.cmd("ZADD", "z", "1", "a", "2", "b");
      sub.cmd("PSUBSCRIBE", "__keyevent@0__:*");
      c.cmd("BLPOP", "q", "0");
      c.cmd("LMPOP", "1", "q", "RIGHT");
      c.cmd("LMOVE", "q", "q", "LEFT", "RIGHT");
      c.cmd("RPOPLPUSH", "q", "d");
      c.cmd("BZPOPMIN", "z", "0");
      c.cmd("ZMPOP", "1", "z", "MAX");
      assertEquals(
          List.of(
              "__keyevent@0__:lpop q",
              "__keyevent@0__:rpop q",
              "__keyevent@0__:rpush q",
              "__keyevent@0__:lpop q",
              "__keyevent@0__:lpush d",
              "__keyevent@0__:rpop q",
              "__keyevent@0__:zpopmin z",
              "__keyevent@0__:zpopmax z",
              "__keyevent@0__:del z"),
          keyspaceEvents(sub.read()));
    }
  }
}
