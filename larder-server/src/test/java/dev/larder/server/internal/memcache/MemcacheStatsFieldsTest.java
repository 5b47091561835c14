package dev.larder.server.internal.memcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code stats} fields memcached tools read: the general group's counts, {@code stats conns}
 * states, {@code cache_memlimit} and {@code lru_crawler metadump}.
 */
class MemcacheStatsFieldsTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.memcache();

  @AfterEach
  void close() {
    server.close();
  }

  private static Map<String, String> stats(TestServer.Connection c, String group) {
    Map<String, String> m = new LinkedHashMap<>();
    Matcher s = Pattern.compile("STAT (\\S+) (.*)\r\n").matcher(c.raw("stats" + group + "\r\n"));
    while (s.find()) {
      m.put(s.group(1), s.group(2));
    }
    return m;
  }

  @Test
  void getExpiredCountsOnlyFetchesOfExpiredItems() {
    c.raw("set short 0 2 1\r\nx\r\n");
    c.raw("set long 0 100 1\r\nx\r\n");
    assertEquals("END\r\n", c.raw("get never\r\n"));
    server.now.addAndGet(3000);
    assertEquals("END\r\n", c.raw("get short\r\n"));
    assertEquals("END\r\n", c.raw("get short\r\n"), "gone now: a plain miss");
    assertTrue(c.raw("get long\r\n").startsWith("VALUE long"));
    c.raw("set meta 0 1 1\r\nx\r\n");
    server.now.addAndGet(2000);
    assertEquals("EN\r\n", c.raw("mg meta v\r\n"));
    Map<String, String> s = stats(c, "");
    assertEquals("2", s.get("get_expired"));
    assertEquals("4", s.get("get_misses"));
  }

  @Test
  void bytesReadAndWrittenCountTheWire() {
    c.raw("stats reset\r\n");
    String get = "get nothing\r\n";
    c.raw(get);
    Map<String, String> s = stats(c, "");
    // since the reset: the get and this stats command in; RESET and END out
    assertEquals(Long.toString(get.length() + "stats\r\n".length()), s.get("bytes_read"));
    assertEquals(Long.toString("RESET\r\n".length() + "END\r\n".length()), s.get("bytes_written"));
  }

  @Test
  void fieldsLarderHasNoEventForAreZero() {
    c.raw("set k 0 0 1\r\nx\r\n");
    c.raw("flush_all\r\n");
    c.raw("get k\r\n");
    Map<String, String> s = stats(c, "");
    for (String zero :
        new String[] {
          "get_flushed",
          "listen_disabled_num",
          "time_in_listen_disabled_us",
          "conn_yields",
          "reclaimed",
          "lrutail_reflocked",
          "auth_cmds",
          "auth_errors"
        }) {
      assertEquals("0", s.get(zero), zero);
    }
    assertTrue(s.get("rusage_user").matches("\\d+\\.\\d{6}"), s.get("rusage_user"));
    assertTrue(s.get("rusage_system").matches("\\d+\\.\\d{6}"), s.get("rusage_system"));
    assertEquals("1", s.get("cmd_flush"));
    List<String> order = List.copyOf(s.keySet());
    assertEquals(
        order.indexOf("threads") + 1, order.indexOf("conn_yields"), "after threads, as memcached");
  }

  @Test
  void connsShowsAConnectionReadingData() {
    TestServer.Connection writer = server.memcache();
    TestServer.Connection watcher = server.memcache();
    watcher.raw("watch\r\n");
    assertEquals("", writer.raw("set foo 0 0 6\r\nfoo"));
    Map<String, String> s = stats(c, " conns");
    assertEquals("conn_listening", s.get("0:state"));
    assertTrue(s.containsValue("conn_nread"), s.toString());
    assertTrue(s.containsValue("conn_parse_cmd"), s.toString());
    assertTrue(s.containsValue("conn_watch"), s.toString());
    assertEquals("STORED\r\n", writer.raw("val\r\n"));
    s = stats(c, " conns");
    assertTrue(!s.containsValue("conn_nread"), s.toString());
  }

  @Test
  void cacheMemlimitSetsMaxmemoryAndKeepsTheItems() {
    c.raw("set k 0 0 1\r\nx\r\n");
    assertEquals("OK\r\n", c.raw("cache_memlimit 100\r\n"));
    assertEquals(Long.toString(100L << 20), stats(c, "").get("limit_maxbytes"));
    assertEquals(Long.toString(100L << 20), stats(c, " settings").get("maxbytes"));
    assertEquals(100L << 20, server.keyspace.maxMemory());
    assertEquals("VALUE k 0 1\r\nx\r\nEND\r\n", c.raw("get k\r\n"));
    assertEquals(
        "MEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m\r\n",
        c.raw("cache_memlimit 7\r\n"));
    assertEquals("ERROR\r\n", c.raw("cache_memlimit x\r\n"));
    assertEquals("ERROR\r\n", c.raw("cache_memlimit\r\n"));
    assertEquals("", c.raw("cache_memlimit 64 noreply\r\n"));
    assertEquals(64L << 20, server.keyspace.maxMemory());
  }

  @Test
  void metadumpListsEveryItem() {
    c.raw("set plain 0 0 3\r\nabc\r\n");
    c.raw("set timed 0 100 2\r\nxy\r\n");
    c.raw("set a%b 0 0 1\r\nz\r\n");
    c.raw("get timed\r\n");
    server.resp().cmd("HSET", "hash", "f", "v");
    String dump = c.raw("lru_crawler metadump all\r\n");
    assertTrue(dump.endsWith("\nEND\r\n"), dump);
    assertEquals(
        5,
        dump.split("\n", -1).length,
        "three items and END, each item's line ended by a bare line feed; the hash is none: "
            + dump);
    assertEquals(1, dump.split("\r", -1).length - 1, "only END ends with CRLF: " + dump);
    List<String> lines = List.of(dump.split("\n", -1));
    long exp = TestServer.START / 1000 + 100;
    assertEquals(
        new TreeSet<>(
            List.of(
                "key=a%25b exp=-1 la=0 cas=N fetch=no cls=1 size=4",
                "key=plain exp=-1 la=0 cas=N fetch=no cls=1 size=8",
                "key=timed exp=" + exp + " la=0 cas=N fetch=yes cls=1 size=7")),
        new TreeSet<>(
            lines.subList(0, 3).stream().map(l -> l.replaceAll("cas=\\d+", "cas=N")).toList()));
    assertEquals(dump, c.raw("lru_crawler metadump hash\r\n"));
    assertEquals(dump, c.raw("lru_crawler metadump 1,2\r\n"));
    assertEquals("END\r\n", c.raw("lru_crawler metadump 2\r\n"));
    assertEquals("BADCLASS invalid class id\r\n", c.raw("lru_crawler metadump 0\r\n"));
    assertEquals("ERROR\r\n", c.raw("lru_crawler crawl 1\r\n"));
  }
}
