package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * DUMP and RESTORE, OBJECT, MEMORY USAGE, CONFIG GET/SET/RESETSTAT and INFO's added fields; error
 * lines are redis-server 7.0.15's.
 */
class RespIntrospectionTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  /** The bulk string of a reply, as bytes. */
  private static String bulk(String reply) {
    int header = reply.indexOf("\r\n");
    return reply.substring(header + 2, reply.length() - 2);
  }

  @Test
  void dumpAndRestoreMoveAWholeValue() {
    c.cmd("HSET", "h", "a", "1", "b", "2");
    String payload = bulk(c.cmd("DUMP", "h"));
    assertEquals("$-1\r\n", c.cmd("DUMP", "missing"));
    assertEquals("+OK\r\n", c.cmd("RESTORE", "copy", "0", payload));
    assertEquals("*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n", c.cmd("HGETALL", "copy"));
    assertEquals(":-1\r\n", c.cmd("PTTL", "copy"));
    assertEquals(
        "-BUSYKEY Target key name already exists.\r\n", c.cmd("RESTORE", "copy", "0", payload));
    c.cmd("SET", "s", "text");
    String string = bulk(c.cmd("DUMP", "s"));
    assertEquals("+OK\r\n", c.cmd("RESTORE", "copy", "5000", string, "REPLACE"));
    assertEquals("$4\r\ntext\r\n", c.cmd("GET", "copy"));
    assertEquals(":5000\r\n", c.cmd("PTTL", "copy"));
    long at = TestServer.START + 7000;
    assertEquals(
        "+OK\r\n", c.cmd("RESTORE", "abs", Long.toString(at), string, "ABSTTL", "IDLETIME", "10"));
    assertEquals(":7000\r\n", c.cmd("PTTL", "abs"));
    assertEquals(
        "+OK\r\n",
        c.cmd("RESTORE", "copy", Long.toString(TestServer.START - 1), string, "ABSTTL", "REPLACE"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "copy"), "a deadline already past: REPLACE deletes");
    assertEquals("+OK\r\n", c.cmd("RESTORE", "f", "0", string, "FREQ", "200"));
  }

  @Test
  void restoreRefusesWithRedisMessages() {
    c.cmd("SET", "s", "text");
    String good = bulk(c.cmd("DUMP", "s"));
    byte[] broken = good.getBytes(StandardCharsets.ISO_8859_1);
    broken[3] ^= 1;
    assertEquals(
        "-ERR DUMP payload version or checksum are wrong\r\n",
        c.cmd("RESTORE", "k", "0", new String(broken, StandardCharsets.ISO_8859_1)));
    assertEquals(
        "-ERR DUMP payload version or checksum are wrong\r\n", c.cmd("RESTORE", "k", "0", "xxx"));
    assertEquals("-ERR Invalid TTL value, must be >= 0\r\n", c.cmd("RESTORE", "k", "-1", good));
    assertEquals(
        "-ERR value is not an integer or out of range\r\n", c.cmd("RESTORE", "k", "x", good));
    assertEquals("-ERR syntax error\r\n", c.cmd("RESTORE", "k", "0", good, "foo"));
    assertEquals(
        "-ERR syntax error\r\n", c.cmd("RESTORE", "k", "0", good, "IDLETIME", "5", "FREQ", "3"));
    assertEquals(
        "-ERR Invalid IDLETIME value, must be >= 0\r\n",
        c.cmd("RESTORE", "k", "0", good, "IDLETIME", "-1"));
    assertEquals(
        "-ERR Invalid FREQ value, must be >= 0 and <= 255\r\n",
        c.cmd("RESTORE", "k", "0", good, "FREQ", "256"));
    assertEquals(
        "-BUSYKEY Target key name already exists.\r\n", c.cmd("RESTORE", "s", "x", "junk"));
    assertEquals(":0\r\n", c.cmd("EXISTS", "k"));
  }

  @Test
  void objectSaysWhatRedisWouldAndRefusesWhatIsNotTracked() {
    c.cmd("SET", "n", "12345");
    c.cmd("SET", "short", "hello");
    c.cmd("SET", "long", "x".repeat(45));
    c.cmd("HSET", "h", "f", "v");
    assertEquals("$3\r\nint\r\n", c.cmd("OBJECT", "ENCODING", "n"));
    assertEquals("$6\r\nembstr\r\n", c.cmd("OBJECT", "ENCODING", "short"));
    assertEquals("$3\r\nraw\r\n", c.cmd("object", "encoding", "long"));
    assertEquals("$8\r\nlistpack\r\n", c.cmd("OBJECT", "ENCODING", "h"));
    assertEquals("+OK\r\n", c.cmd("CONFIG", "SET", "hash-max-ziplist-value", "0"));
    assertEquals("$9\r\nhashtable\r\n", c.cmd("OBJECT", "ENCODING", "h"));
    assertEquals("$-1\r\n", c.cmd("OBJECT", "ENCODING", "missing"));
    c.cmd("RPUSH", "l", "a");
    assertEquals("$9\r\nquicklist\r\n", c.cmd("OBJECT", "ENCODING", "l"));
    c.cmd("SADD", "ints", "1", "-2", "30");
    c.cmd("SADD", "strs", "1", "01");
    assertEquals("$6\r\nintset\r\n", c.cmd("OBJECT", "ENCODING", "ints"));
    assertEquals("$9\r\nhashtable\r\n", c.cmd("OBJECT", "ENCODING", "strs"));
    assertEquals("+OK\r\n", c.cmd("CONFIG", "SET", "set-max-intset-entries", "2"));
    assertEquals("$9\r\nhashtable\r\n", c.cmd("OBJECT", "ENCODING", "ints"));
    c.cmd("ZADD", "z", "1", "a", "2", "bb");
    assertEquals("$8\r\nlistpack\r\n", c.cmd("OBJECT", "ENCODING", "z"));
    assertEquals("+OK\r\n", c.cmd("CONFIG", "SET", "zset-max-listpack-value", "1"));
    assertEquals("$8\r\nskiplist\r\n", c.cmd("OBJECT", "ENCODING", "z"));
    assertEquals("+OK\r\n", c.cmd("CONFIG", "SET", "zset-max-listpack-value", "64"));
    assertEquals("+OK\r\n", c.cmd("CONFIG", "SET", "zset-max-listpack-entries", "1"));
    assertEquals("$8\r\nskiplist\r\n", c.cmd("OBJECT", "ENCODING", "z"));
    assertEquals(":1\r\n", c.cmd("OBJECT", "REFCOUNT", "n"));
    assertTrue(c.cmd("OBJECT", "FREQ", "n").startsWith("-ERR access frequency is not tracked"));
    assertTrue(
        c.cmd("OBJECT", "IDLETIME", "n")
            .startsWith("-ERR An LFU maxmemory policy is selected, idle time not tracked."));
    c.cmd("CONFIG", "SET", "maxmemory-policy", "noeviction");
    assertTrue(
        c.cmd("OBJECT", "FREQ", "n")
            .startsWith("-ERR An LFU maxmemory policy is not selected, access frequency"));
    assertEquals(
        "-ERR unknown subcommand 'foo'. Try OBJECT HELP.\r\n", c.cmd("OBJECT", "foo", "n"));
    assertEquals(
        "-ERR wrong number of arguments for 'object|encoding' command\r\n",
        c.cmd("OBJECT", "ENCODING"));
    assertTrue(c.cmd("OBJECT", "HELP").contains("+ENCODING <key>\r\n"));
  }

  @Test
  void objectEncodingOfALargeChunkedCollectionComesFromItsHead() {
    List<String> set = new ArrayList<>(List.of("SADD", "set"));
    List<String> hash = new ArrayList<>(List.of("HSET", "hash"));
    List<String> zset = new ArrayList<>(List.of("ZADD", "zset"));
    for (int i = 0; i < 2_000; i++) {
      set.add("member:" + i);
      hash.add("field:" + i);
      hash.add("value:" + i);
      zset.add(Integer.toString(i));
      zset.add("member:" + i);
    }
    c.cmd(set.toArray(String[]::new));
    c.cmd(hash.toArray(String[]::new));
    c.cmd(zset.toArray(String[]::new));
    assertEquals("$9\r\nhashtable\r\n", c.cmd("OBJECT", "ENCODING", "set"));
    assertEquals("$9\r\nhashtable\r\n", c.cmd("OBJECT", "ENCODING", "hash"));
    assertEquals("$8\r\nskiplist\r\n", c.cmd("OBJECT", "ENCODING", "zset"));
    // Within the thresholds, the entries are read to tell: short, so Redis would keep a listpack.
    assertEquals("+OK\r\n", c.cmd("CONFIG", "SET", "hash-max-listpack-entries", "5000"));
    assertEquals("+OK\r\n", c.cmd("CONFIG", "SET", "zset-max-listpack-entries", "5000"));
    assertEquals("$8\r\nlistpack\r\n", c.cmd("OBJECT", "ENCODING", "hash"));
    assertEquals("$8\r\nlistpack\r\n", c.cmd("OBJECT", "ENCODING", "zset"));
    assertEquals(":2000\r\n", c.cmd("SCARD", "set"), "the set is whole after it");
  }

  @Test
  void memoryUsageIsTheEntrysBytesInTheStore() {
    c.cmd("SET", "key", "v".repeat(100));
    // 1 + 1 length varints, 4 bytes of stored key, 100 + 2 bytes of value (tag, version 1), 10.
    assertEquals(":118\r\n", c.cmd("MEMORY", "USAGE", "key"));
    assertEquals(":118\r\n", c.cmd("MEMORY", "USAGE", "key", "SAMPLES", "0"));
    assertEquals("$-1\r\n", c.cmd("MEMORY", "USAGE", "missing"));
    assertEquals("-ERR syntax error\r\n", c.cmd("MEMORY", "USAGE", "key", "SAMPLES", "-1"));
    assertEquals("-ERR unknown subcommand 'foo'. Try MEMORY HELP.\r\n", c.cmd("MEMORY", "foo"));
    assertTrue(c.cmd("MEMORY", "HELP").contains("+USAGE <key> [SAMPLES <count>]\r\n"));
  }

  @Test
  void configGetSetOfParametersToolsTouch() {
    assertEquals("+OK\r\n", c.cmd("CONFIG", "SET", "notify-keyspace-events", "KEA"));
    assertEquals(
        "*2\r\n$22\r\nnotify-keyspace-events\r\n$3\r\nAKE\r\n",
        c.cmd("CONFIG", "GET", "notify-keyspace-events"));
    assertEquals(
        "-ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') -"
            + " Invalid event class character. Use 'Ag$lshzxeKEtmdn'.\r\n",
        c.cmd("CONFIG", "SET", "notify-keyspace-events", "Q"));
    assertEquals(
        "-ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable"
            + " config\r\n",
        c.cmd("CONFIG", "SET", "databases", "3"));
    assertEquals(
        "-ERR CONFIG SET failed (possibly related to argument 'appendonly') - can't set immutable"
            + " config\r\n",
        c.cmd("CONFIG", "SET", "appendonly", "yes"));
    assertEquals(
        "-ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed"
            + " into an integer\r\n",
        c.cmd("CONFIG", "SET", "hz", "x"));
    assertEquals(
        "-ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save"
            + " parameters\r\n",
        c.cmd("CONFIG", "SET", "save", "x"));
    assertEquals(
        "-ERR CONFIG SET failed (possibly related to argument 'lazyfree-lazy-user-del') -"
            + " argument must be 'yes' or 'no'\r\n",
        c.cmd("CONFIG", "SET", "lazyfree-lazy-user-del", "maybe"));
    assertEquals(
        "-ERR CONFIG SET failed (possibly related to argument 'maxmemory') - duplicate"
            + " parameter\r\n",
        c.cmd("CONFIG", "SET", "maxmemory", "2mb", "maxmemory", "3mb"));
    assertEquals(
        "+OK\r\n",
        c.cmd("CONFIG", "SET", "save", "3600 1 300 100", "hz", "1000", "lfu-log-factor", "12"));
    assertEquals("*2\r\n$4\r\nsave\r\n$14\r\n3600 1 300 100\r\n", c.cmd("CONFIG", "GET", "save"));
    assertEquals("*2\r\n$2\r\nhz\r\n$3\r\n500\r\n", c.cmd("CONFIG", "GET", "hz"));
    assertEquals(
        """
        *4\r
        $25\r
        hash-max-listpack-entries\r
        $3\r
        512\r
        $24\r
        hash-max-ziplist-entries\r
        $3\r
        512\r
        """,
        c.cmd("CONFIG", "GET", "hash-max-*-entries"));
    assertEquals(
        "-ERR Unknown option or number of arguments for CONFIG SET - 'nothing'\r\n",
        c.cmd("CONFIG", "SET", "nothing", "1"));
    assertEquals("*0\r\n", c.cmd("CONFIG", "GET", "nothing"));
    assertEquals(
        "*4\r\n$9\r\ndatabases\r\n$2\r\n16\r\n$10\r\nappendonly\r\n$2\r\nno\r\n",
        c.cmd("CONFIG", "GET", "databases", "appendonly"));
  }

  @Test
  void configSetAppliesAllOrNothing() {
    assertEquals(
        "-ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed"
            + " into an integer\r\n",
        c.cmd("CONFIG", "SET", "lfu-log-factor", "3", "hz", "x"));
    assertEquals(
        "*2\r\n$14\r\nlfu-log-factor\r\n$2\r\n10\r\n", c.cmd("CONFIG", "GET", "lfu-log-factor"));
  }

  @Test
  void infoReportsCpuCommandstatsAndRates() {
    c.cmd("SET", "k", "v", "PX", "10000");
    c.cmd("GET", "k");
    c.cmd("GET");
    c.cmd("INCR", "k");
    // avg_ttl is the expiry sweep's estimate, as Redis's is its active expiry cycle's
    server.keyspace.sweepExpired(100);
    String info = bulk(c.cmd("INFO"));
    assertTrue(info.contains("# CPU\r\nused_cpu_sys:"), info);
    assertTrue(info.contains("used_cpu_user:"), info);
    assertTrue(info.contains("instantaneous_ops_per_sec:"), info);
    assertTrue(info.contains("db0:keys=1,expires=1,avg_ttl=10000\r\n"), info);
    assertTrue(!info.contains("cmdstat_"), "commandstats is not a default section");
    String stats = bulk(c.cmd("INFO", "commandSTATS"));
    assertTrue(stats.startsWith("# Commandstats\r\n"), stats);
    assertTrue(
        stats.contains("cmdstat_get:calls=1,usec=")
            && stats.contains(",rejected_calls=1,failed_calls=0"),
        stats);
    assertTrue(stats.contains("cmdstat_incr:calls=1,") && stats.contains("failed_calls=1"), stats);
    String all = bulk(c.cmd("INFO", "cpu", "all"));
    assertEquals(all.indexOf("used_cpu_user_children"), all.lastIndexOf("used_cpu_user_children"));
    assertTrue(all.contains("rejected_calls") && all.contains("used_memory"), all);
    assertEquals("+OK\r\n", c.cmd("CONFIG", "RESETSTAT"));
    assertTrue(!bulk(c.cmd("INFO", "commandstats")).contains("cmdstat_get"));
    assertTrue(bulk(c.cmd("INFO", "stats")).contains("total_commands_processed:2\r\n"));
  }
}
