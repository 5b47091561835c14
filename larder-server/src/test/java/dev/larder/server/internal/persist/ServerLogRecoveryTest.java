package dev.larder.server.internal.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command that changes the keyspace, RESP and memcached, is recovered from the log (and from
 * a checkpoint followed by the log) exactly as it was: type, payload, expiry and flags of every key
 * of every database.
 */
class ServerLogRecoveryTest {
  private static final long START = TestServer.START;

  @Test
  void everyChangeIsRecoveredFromTheLog(@TempDir Path dir) throws Exception {
    Map<String, String> before;
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      firstHalf(s);
      secondHalf(s);
      before = dump(s.keyspace);
    }
    assertTrue(before.size() > 30, "the commands left keys: " + before.keySet());
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      assertEquals(before, dump(s.keyspace));
    }
  }

  @Test
  void everyChangeIsRecoveredFromACheckpointAndTheLogAfterIt(@TempDir Path dir) throws Exception {
    Map<String, String> before;
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      firstHalf(s);
      assertEquals("+OK\r\n", s.resp().cmd("SAVE"));
      secondHalf(s);
      before = dump(s.keyspace);
    }
    try (var files = Files.list(dir)) {
      assertEquals(1, files.filter(p -> p.toString().endsWith(".ckp")).count());
    }
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      assertEquals(before, dump(s.keyspace));
      assertTrue(s.log.recovered().checkpointKeys() > 10);
      assertTrue(s.log.recovered().report().recordsReplayed() > 10);
    }
  }

  @Test
  void flushallOfEveryDatabaseIsRecovered(@TempDir Path dir) throws Exception {
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      TestServer.Connection c = s.resp();
      c.cmd("SET", "a", "1");
      c.cmd("SELECT", "2");
      c.cmd("SET", "b", "2");
      assertEquals("+OK\r\n", c.cmd("FLUSHALL"));
      c.cmd("SET", "c", "3");
      c.cmd("SELECT", "3");
      c.cmd("SET", "d", "4");
      assertEquals("+OK\r\n", c.cmd("FLUSHALL", "ASYNC"));
      c.cmd("SET", "e", "5");
    }
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      assertEquals(Set.of("3:e"), dump(s.keyspace).keySet());
    }
  }

  @Test
  void aTransactionIsOneRecord(@TempDir Path dir) throws Exception {
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      TestServer.Connection c = s.resp();
      long before = records(c);
      c.cmd("MULTI");
      c.cmd("SET", "a", "1");
      c.cmd("INCR", "a");
      c.cmd("HSET", "h", "f", "v");
      c.cmd("DEL", "nothing");
      assertEquals("*4\r\n+OK\r\n:2\r\n:1\r\n:0\r\n", c.cmd("EXEC"));
      assertEquals(before + 1, records(c));
      c.cmd("MSET", "x", "1", "y", "2", "z", "3");
      c.cmd("RENAME", "x", "w");
      assertEquals(before + 3, records(c));
    }
  }

  @Test
  void keysThatExpiredWhileTheServerWasDownAreGone(@TempDir Path dir) throws Exception {
    for (boolean checkpoint : new boolean[] {false, true}) {
      Path d = dir.resolve(checkpoint ? "checkpoint" : "log");
      try (TestServer s = new TestServer(Map.of(), d, START)) {
        TestServer.Connection c = s.resp();
        c.cmd("SET", "short", "v", "PX", "5000");
        c.cmd("SET", "long", "v", "PX", "3600000");
        c.cmd("SET", "plain", "v");
        s.memcache().raw("set mshort 0 5 1\r\nv\r\nset mlong 0 3600 1\r\nv\r\n");
        if (checkpoint) {
          assertEquals("+OK\r\n", c.cmd("SAVE"));
        }
      }
      try (TestServer s = new TestServer(Map.of(), d, START + 10_000)) {
        TestServer.Connection c = s.resp();
        assertEquals("$-1\r\n", c.cmd("GET", "short"));
        assertEquals("$-1\r\n", c.cmd("GET", "mshort"));
        assertEquals(":" + (3_600_000 - 10_000) + "\r\n", c.cmd("PTTL", "long"));
        assertEquals(":" + (3_600_000 - 10_000) + "\r\n", c.cmd("PTTL", "mlong"));
        assertEquals("$1\r\nv\r\n", c.cmd("GET", "plain"));
        assertEquals(":3\r\n", c.cmd("DBSIZE"));
      }
    }
  }

  @Test
  void evictedKeysDoNotComeBack(@TempDir Path dir) throws Exception {
    Set<String> present = new HashSet<>();
    long evicted;
    try (TestServer s = new TestServer(Map.of("maxmemory", "1mb"), dir, START)) {
      TestServer.Connection c = s.resp();
      StringBuilder pipeline = new StringBuilder();
      for (int i = 0; i < 20_000; i++) {
        pipeline.append(TestServer.Connection.multibulk("SET", "k" + i, "v".repeat(200)));
      }
      c.raw(pipeline.toString());
      evicted = s.keyspace.stats()[3];
      s.keyspace.forEach(0, (k, v) -> present.add(new String(k, StandardCharsets.UTF_8)));
    }
    assertTrue(evicted > 1000, "the load evicted keys: " + evicted);
    // Reopened larger, so that the replay evicts nothing of its own: what comes back is what
    // the log says.
    try (TestServer s = new TestServer(Map.of("maxmemory", "64mb"), dir, START)) {
      Set<String> after = new HashSet<>();
      s.keyspace.forEach(0, (k, v) -> after.add(new String(k, StandardCharsets.UTF_8)));
      assertEquals(0, s.keyspace.stats()[3]);
      Set<String> cameBack = new HashSet<>(after);
      cameBack.removeAll(present);
      assertEquals(
          Set.of(),
          cameBack.size() > 10 ? Set.of(cameBack.size() + " keys") : cameBack,
          "evicted keys back after the restart");
      assertEquals(present.size(), after.size());
    }
  }

  @Test
  void versionsAfterARestartAreNewerThanAnyBefore(@TempDir Path dir) throws Exception {
    long last;
    long beforeSave;
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      TestServer.Connection m = s.memcache();
      for (int i = 0; i < 100; i++) {
        m.raw("set k" + i + " 0 0 1\r\nv\r\n");
      }
      beforeSave = s.keyspace.lastVersion();
      s.resp().cmd("SAVE");
      m.raw("set after 0 0 1\r\nv\r\n");
      last = s.keyspace.lastVersion();
    }
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      assertTrue(s.keyspace.lastVersion() >= last);
      StoredValue loaded = s.keyspace.peek(0, "k5".getBytes(StandardCharsets.UTF_8));
      assertTrue(
          loaded.version() > beforeSave,
          "a checkpoint item gets a version above the"
              + " ones given out before it: "
              + loaded.version()
              + " vs "
              + beforeSave);
      String reply = s.memcache().raw("set fresh 0 0 1\r\nv\r\ngets fresh\r\n");
      Matcher cas = Pattern.compile("VALUE fresh 0 1 (\\d+)").matcher(reply);
      assertTrue(cas.find(), reply);
      assertTrue(Long.parseLong(cas.group(1)) > last);
    }
  }

  /** RESP writes of every kind, in several databases. */
  private static void firstHalf(TestServer s) {
    s.memcache().raw("set flushed 0 0 1\r\nv\r\nflush_all\r\n");
    TestServer.Connection c = s.resp();
    c.cmd("SET", "s1", "hello");
    c.cmd("SET", "s2", "v", "EX", "1000");
    c.cmd("SET", "s3", "v", "PX", "500000");
    c.cmd("SET", "s2", "w", "KEEPTTL");
    c.cmd("SET", "s4", "v", "NX");
    c.cmd("SET", "s4", "x", "XX", "GET");
    c.cmd("SET", "s5", "v", "EXAT", Long.toString(START / 1000 + 2000));
    c.cmd("SETEX", "s6", "100", "v");
    c.cmd("PSETEX", "s7", "100000", "v");
    c.cmd("SETNX", "s8", "v");
    c.cmd("GETEX", "s8", "EX", "300");
    c.cmd("SET", "gone1", "v");
    c.cmd("GETDEL", "gone1");
    c.cmd("MSET", "m1", "1", "m2", "2", "m3", "3");
    c.cmd("MSETNX", "n1", "1", "n2", "2");
    c.cmd("APPEND", "s1", " world");
    c.cmd("SETRANGE", "s1", "0", "J");
    c.cmd("INCR", "i1");
    c.cmd("INCRBY", "i1", "41");
    c.cmd("DECR", "i2");
    c.cmd("DECRBY", "i2", "10");
    c.cmd("INCRBYFLOAT", "f1", "1.5");
    c.cmd("SET", "gone2", "v");
    c.cmd("DEL", "gone2", "m3");
    c.cmd("SET", "gone3", "v");
    c.cmd("UNLINK", "gone3");
    c.cmd("EXPIRE", "m1", "100");
    c.cmd("PEXPIRE", "m2", "100000");
    c.cmd("EXPIREAT", "n1", Long.toString(START / 1000 + 5000));
    c.cmd("PEXPIREAT", "n2", Long.toString(START + 7000));
    c.cmd("SET", "p1", "v", "EX", "100");
    c.cmd("PERSIST", "p1");
    c.cmd("SET", "r1", "renamed");
    c.cmd("RENAME", "r1", "r2");
    c.cmd("HSET", "h1", "a", "1", "b", "2", "c", "3");
    c.cmd("HMSET", "h2", "x", "1");
    c.cmd("HDEL", "h1", "b");
    c.cmd("HINCRBY", "h1", "a", "10");
    c.cmd("MULTI");
    c.cmd("SET", "t1", "1");
    c.cmd("INCR", "t1");
    c.cmd("HSET", "t2", "f", "v");
    c.cmd("EXEC");
    c.cmd("SELECT", "3");
    c.cmd("SET", "db3", "three");
    c.cmd("SELECT", "4");
    c.cmd("SET", "db4", "four");
    c.cmd("FLUSHDB");
    c.cmd("SET", "db4b", "four again");
    c.cmd("SELECT", "5");
    c.cmd("SET", "db5", "five");
    c.cmd("SELECT", "0");
  }

  /** memcached writes of every kind, then more RESP (FLUSHALL of a database's worth). */
  private static void secondHalf(TestServer s) {
    TestServer.Connection m = s.memcache();
    m.raw("set mc1 7 0 3\r\nabc\r\n");
    m.raw("set mc2 0 1000 3\r\nabc\r\n");
    m.raw("add mc3 1 0 1\r\nx\r\n");
    m.raw("add mc3 1 0 1\r\ny\r\n");
    m.raw("replace mc1 8 0 3\r\ndef\r\n");
    m.raw("append mc1 0 0 2\r\ngh\r\n");
    m.raw("prepend mc1 0 0 2\r\nab\r\n");
    m.raw("set n 0 0 2\r\n10\r\nincr n 5\r\ndecr n 3\r\n");
    String gets = m.raw("gets mc3\r\n");
    Matcher cas = Pattern.compile("VALUE mc3 1 1 (\\d+)").matcher(gets);
    assertTrue(cas.find(), gets);
    m.raw("cas mc3 2 0 1 " + cas.group(1) + "\r\nz\r\n");
    m.raw("touch mc2 2000\r\n");
    m.raw("set mc4 0 0 1\r\nv\r\ngat 3000 mc4\r\n");
    m.raw("set gone4 0 0 1\r\nv\r\ndelete gone4\r\n");
    m.raw("ms meta1 2 T500 F9\r\nmm\r\n");
    m.raw("ms meta2 1\r\nx\r\nmd meta2\r\n");
    m.raw("ms meta3 1\r\n5\r\nma meta3 D10\r\n");
    m.raw("mg meta1 T900 v\r\n");
    TestServer.Connection c = s.resp();
    c.cmd("SELECT", "5");
    c.cmd("SET", "db5b", "five b");
    c.cmd("SELECT", "6");
    c.cmd("SET", "db6", "six");
    c.cmd("SELECT", "0");
    assertEquals("$1\r\nz\r\n", c.cmd("GET", "mc3"));
  }

  private static long records(TestServer.Connection c) {
    Matcher m = Pattern.compile("larder_log_records:(\\d+)").matcher(c.cmd("INFO", "persistence"));
    assertTrue(m.find());
    return Long.parseLong(m.group(1));
  }

  /** Every key of every database, with its value's type, expiry, flags and payload. */
  static Map<String, String> dump(Keyspace keyspace) {
    Map<String, String> all = new TreeMap<>();
    HexFormat hex = HexFormat.of();
    keyspace.forEachStored(
        (entry, keyLength, valueLength) -> {
          byte[] k = java.util.Arrays.copyOf(entry, keyLength);
          StoredValue value =
              ValueLayout.decode(
                  java.util.Arrays.copyOfRange(entry, keyLength, keyLength + valueLength));
          all.put(
              k[0] + ":" + new String(k, 1, k.length - 1, StandardCharsets.UTF_8),
              value.type()
                  + " expiry="
                  + value.expiresAtMillis()
                  + " flags="
                  + value.clientFlags()
                  + " "
                  + hex.formatHex(value.payload()));
        });
    assertFalse(all.containsKey("0:flushed"));
    return all;
  }
}
