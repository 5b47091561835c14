package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DUMP and RESTORE of every type through the real decoder and handler: small values and collections
 * large enough to be stored in chunks round-trip, a large one is restored in chunks (no stored
 * entry of the size of the collection), REPLACE, TTL and ABSTTL, and damaged payloads answer
 * Redis's errors. The error lines are redis-server 7.0.15's.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RespDumpRestoreTest {
  /**
   * Elements of a large collection: its packed payload is far past the 8 KiB where chunks start.
   */
  private static final int LARGE = 1_500;

  /** No stored entry of a restored large collection may come near its whole size. */
  private static final int ENTRY_BOUND = 16 << 10;

  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  /** Fills a key of a type with n elements through the type's own commands. */
  private void fill(String type, String key, int n) {
    for (int from = 0; from < n; from += 500) {
      List<String> words = new ArrayList<>();
      words.add(
          switch (type) {
            case "list" -> "RPUSH";
            case "set" -> "SADD";
            case "zset" -> "ZADD";
            default -> "HSET";
          });
      words.add(key);
      for (int i = from; i < Math.min(n, from + 500); i++) {
        // integers and strings, so a set's chunks take more than one encoding
        String element = i % 3 == 0 ? Integer.toString(i) : "element:" + i;
        if (type.equals("zset")) {
          words.add(Integer.toString(i % 97));
        }
        words.add(element);
        if (type.equals("hash")) {
          words.add("value:" + i);
        }
      }
      c.cmd(words.toArray(String[]::new));
    }
  }

  /** The key's contents as a client sees them, in an order that does not depend on storage. */
  private String contents(String type, String key) {
    return switch (type) {
      case "list" -> c.cmd("LRANGE", key, "0", "-1");
      case "zset" -> c.cmd("ZRANGE", key, "0", "-1", "WITHSCORES");
      case "set" -> sortedLines(c.cmd("SMEMBERS", key));
      default -> sortedLines(c.cmd("HGETALL", key));
    };
  }

  /** A multibulk reply's lines, sorted (a hash's fields and values are each a line). */
  private static String sortedLines(String reply) {
    String[] lines = reply.split("\r\n");
    Arrays.sort(lines);
    return String.join("\n", lines);
  }

  /** The bulk string of a reply, or null. */
  private static String bulk(String reply) {
    if (reply.startsWith("$-1")) {
      return null;
    }
    int header = reply.indexOf("\r\n");
    return reply.substring(header + 2, reply.length() - 2);
  }

  private int largestStoredEntry() {
    int largest = 0;
    for (Map.Entry<byte[], byte[]> e : server.keyspace.store().asMap().entrySet()) {
      largest = Math.max(largest, e.getKey().length + e.getValue().length);
    }
    return largest;
  }

  @Test
  void everyTypeRoundTripsSmallAndLarge() {
    c.cmd("SET", "string", "binary\u0000\u00ff");
    assertEquals("+OK\r\n", c.cmd("RESTORE", "string2", "0", bulk(c.cmd("DUMP", "string"))));
    assertEquals(c.cmd("GET", "string"), c.cmd("GET", "string2"));
    for (String type : List.of("list", "set", "zset", "hash")) {
      for (int n : new int[] {3, LARGE}) {
        String key = type + n;
        fill(type, key, n);
        String payload = bulk(c.cmd("DUMP", key));
        assertEquals("+OK\r\n", c.cmd("RESTORE", key + "copy", "0", payload), key);
        assertEquals(contents(type, key), contents(type, key + "copy"), key);
        assertEquals("+" + type + "\r\n", c.cmd("TYPE", key + "copy"));
        if (!type.equals("hash")) {
          // a hash's DUMP lists fields in the order its chunks hold them, which may differ
          assertEquals(payload, bulk(c.cmd("DUMP", key + "copy")), key + ": the same payload");
        }
      }
    }
    assertTrue(
        largestStoredEntry() < ENTRY_BOUND,
        "restored in chunks, no entry of the whole: " + largestStoredEntry());
  }

  @Test
  void aLargeRestoreIsStoredInChunks() {
    fill("set", "s", 12_000);
    String payload = bulk(c.cmd("DUMP", "s"));
    assertTrue(payload.length() > 100_000, "a large payload: " + payload.length());
    try (TestServer other = new TestServer()) {
      TestServer.Connection s = other.resp();
      assertEquals("+OK\r\n", s.cmd("RESTORE", "s", "0", payload));
      assertEquals(":12000\r\n", s.cmd("SCARD", "s"));
      assertEquals(":1\r\n", s.cmd("SISMEMBER", "s", "element:11999"));
      assertEquals(payload, bulk(s.cmd("DUMP", "s")));
      int largest = 0;
      for (Map.Entry<byte[], byte[]> e : other.keyspace.store().asMap().entrySet()) {
        largest = Math.max(largest, e.getKey().length + e.getValue().length);
      }
      assertTrue(largest < ENTRY_BOUND, "no entry of the whole set: " + largest);
      assertTrue(other.keyspace.estimatedSize() > 50, "chunks: " + other.keyspace.estimatedSize());
    }
  }

  @Test
  void replaceAndBusyKey() {
    fill("zset", "z", LARGE);
    String zset = bulk(c.cmd("DUMP", "z"));
    c.cmd("SET", "k", "v");
    assertEquals("-BUSYKEY Target key name already exists.\r\n", c.cmd("RESTORE", "k", "0", zset));
    assertEquals("$1\r\nv\r\n", c.cmd("GET", "k"), "unchanged");
    assertEquals("+OK\r\n", c.cmd("RESTORE", "k", "0", zset, "REPLACE"));
    assertEquals(contents("zset", "z"), contents("zset", "k"));
    assertEquals("-BUSYKEY Target key name already exists.\r\n", c.cmd("RESTORE", "k", "0", zset));

    // a small list over the large sorted set: its chunks go with it
    c.cmd("RPUSH", "l", "a", "b");
    assertEquals("+OK\r\n", c.cmd("RESTORE", "k", "0", bulk(c.cmd("DUMP", "l")), "REPLACE"));
    assertEquals("*2\r\n$1\r\na\r\n$1\r\nb\r\n", c.cmd("LRANGE", "k", "0", "-1"));
    c.cmd("DEL", "z");
    assertEquals(2, server.keyspace.estimatedSize(), "k and l: no chunk left behind");

    // a large hash over a large list, and a large list over a large hash
    fill("hash", "h", LARGE);
    fill("list", "big", LARGE);
    String hash = bulk(c.cmd("DUMP", "h"));
    String list = bulk(c.cmd("DUMP", "big"));
    assertEquals("+OK\r\n", c.cmd("RESTORE", "big", "0", hash, "REPLACE"));
    assertEquals(contents("hash", "h"), contents("hash", "big"));
    assertEquals("+OK\r\n", c.cmd("RESTORE", "h", "0", list, "REPLACE"));
    assertEquals("+list\r\n", c.cmd("TYPE", "h"));
    assertEquals(":" + LARGE + "\r\n", c.cmd("LLEN", "h"));
    c.cmd("DEL", "h", "big");
    assertEquals(2, server.keyspace.estimatedSize(), "no chunk left behind");
  }

  @Test
  void ttlAndAbsoluteTtl() {
    for (String type : List.of("list", "set", "zset", "hash")) {
      fill(type, "src", LARGE);
      String payload = bulk(c.cmd("DUMP", "src"));
      c.cmd("RENAME", "src", "src2");
      assertEquals("+OK\r\n", c.cmd("RESTORE", "t", "5000", payload), type);
      assertEquals(":5000\r\n", c.cmd("PTTL", "t"), type);
      long at = server.now.get() + 9_000;
      assertEquals(
          "+OK\r\n", c.cmd("RESTORE", "t", Long.toString(at), payload, "ABSTTL", "REPLACE"));
      assertEquals(":9000\r\n", c.cmd("PTTL", "t"), type);
      assertEquals(contents(type, "src2"), contents(type, "t"), type);
      String past = Long.toString(server.now.get() - 1);
      assertEquals("+OK\r\n", c.cmd("RESTORE", "gone", past, payload, "ABSTTL"), type);
      assertEquals(":0\r\n", c.cmd("EXISTS", "gone"), "a deadline past stores nothing");
      assertEquals("+OK\r\n", c.cmd("RESTORE", "t", past, payload, "ABSTTL", "REPLACE"), type);
      assertEquals(":0\r\n", c.cmd("EXISTS", "t"), "REPLACE with a deadline past removes it");
      c.cmd("DEL", "src2");
      assertEquals(0, server.keyspace.estimatedSize(), type + ": no chunk left behind");
    }
  }

  @Test
  void damagedPayloadsAnswerRedisErrorsAndTheServerGoesOn() {
    String wrong = "-ERR DUMP payload version or checksum are wrong\r\n";
    for (String type : List.of("list", "set", "zset", "hash")) {
      fill(type, "src", 50);
      String payload = bulk(c.cmd("DUMP", "src"));
      c.cmd("DEL", "src");
      char[] flipped = payload.toCharArray();
      flipped[flipped.length / 2] = (char) (flipped[flipped.length / 2] ^ 0x10);
      assertEquals(wrong, c.cmd("RESTORE", "k", "0", new String(flipped)), type);
      assertEquals(wrong, c.cmd("RESTORE", "k", "0", payload.substring(0, payload.length() - 1)));
      assertEquals(wrong, c.cmd("RESTORE", "k", "0", payload.substring(1)));
      char[] version = payload.toCharArray();
      version[1] = 2;
      assertEquals(wrong, c.cmd("RESTORE", "k", "0", new String(version)));
      assertEquals(":0\r\n", c.cmd("EXISTS", "k"));
    }
    // A sound checksum over content that is not a value: a set's members out of order.
    byte[] outOfOrder = {0x4C, 1, 3, 1, 2, 1, 'b', 1, 'a', 0, 0, 0, 0};
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(outOfOrder, 0, outOfOrder.length - 4);
    int sum = (int) crc.getValue();
    for (int i = 0; i < 4; i++) {
      outOfOrder[outOfOrder.length - 4 + i] = (byte) (sum >>> (24 - 8 * i));
    }
    String bad = new String(outOfOrder, java.nio.charset.StandardCharsets.ISO_8859_1);
    assertEquals("-ERR Bad data format\r\n", c.cmd("RESTORE", "k", "0", bad));
    assertEquals("+PONG\r\n", c.cmd("PING"));
  }

  /**
   * One event a RESTORE, as Redis publishes, though a large one changes the key several times (the
   * old value removed, the chunks written, the expiry set); a deadline past with REPLACE is a
   * {@code del}.
   */
  @Test
  void aRestorePublishesOneEvent() {
    try (TestServer events = new TestServer(Map.of("notify-keyspace-events", "KEA"))) {
      TestServer.Connection sub = events.resp();
      TestServer.Connection w = events.resp();
      for (int i = 0; i < LARGE; i += 500) {
        List<String> push = new ArrayList<>(List.of("RPUSH", "l"));
        for (int j = i; j < i + 500; j++) {
          push.add("element:" + j);
        }
        w.cmd(push.toArray(String[]::new));
      }
      String payload = bulk(w.cmd("DUMP", "l"));
      sub.cmd("PSUBSCRIBE", "__keyevent@0__:*");
      assertEquals("+OK\r\n", w.cmd("RESTORE", "l", "5000", payload, "REPLACE"));
      String past = Long.toString(events.now.get() - 1);
      assertEquals("+OK\r\n", w.cmd("RESTORE", "l", past, payload, "REPLACE", "ABSTTL"));
      assertEquals(
          List.of("__keyevent@0__:restore l", "__keyevent@0__:del l"),
          RespClients.keyspaceEvents(RespClients.pending(sub)));
    }
  }

  @Test
  void aLargeRestoreInsideMultiExec() {
    fill("set", "s", LARGE);
    String payload = bulk(c.cmd("DUMP", "s"));
    assertEquals("+OK\r\n", c.cmd("MULTI"));
    assertEquals("+QUEUED\r\n", c.cmd("RESTORE", "copy", "100000", payload));
    assertEquals("+QUEUED\r\n", c.cmd("SCARD", "copy"));
    assertEquals("*2\r\n+OK\r\n:" + LARGE + "\r\n", c.cmd("EXEC"));
    assertEquals(contents("set", "s"), contents("set", "copy"));
  }
}
