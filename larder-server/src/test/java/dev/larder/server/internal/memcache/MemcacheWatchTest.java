package dev.larder.server.internal.memcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** memcached's {@code watch}: the log lines of each kind, their format, and the bounded buffer. */
class MemcacheWatchTest {
  private static final String HEAD = "ts=\\d+\\.\\d{6} gid=\\d+ ";

  private final TestServer server = new TestServer();

  @AfterEach
  void close() {
    server.close();
  }

  /** The connection's id, as the last line of {@code stats conns} from it shows. */
  private static long idOf(TestServer.Connection c) {
    Matcher m = Pattern.compile("STAT (\\d+):addr").matcher(c.raw("stats conns\r\n"));
    long last = -1;
    while (m.find()) {
      last = Long.parseLong(m.group(1));
    }
    assertTrue(last > 0);
    return last;
  }

  private static List<String> lines(String text) {
    return text.isEmpty() ? List.of() : List.of(text.split("\r\n", -1)).subList(0, count(text));
  }

  private static int count(String text) {
    return text.split("\r\n", -1).length - 1;
  }

  @Test
  void fetchersAreLoggedWithTheConnectionId() {
    TestServer.Connection client = server.memcache();
    long id = idOf(client);
    TestServer.Connection watcher = server.memcache();
    assertEquals("OK\r\n", watcher.raw("watch\r\n"));
    client.raw("get foo\r\n");
    client.raw("set foo 0 0 5\r\nhello\r\n");
    client.raw("get foo\r\n");
    client.raw("mg foo v\r\n");
    List<String> log = lines(watcher.read());
    assertEquals(3, log.size(), log.toString());
    assertTrue(
        log.get(0)
            .matches(HEAD + "type=item_get key=foo status=not_found clsid=0 cfd=" + id + " size=0"),
        log.get(0));
    assertTrue(
        log.get(1)
            .matches(HEAD + "type=item_get key=foo status=found clsid=1 cfd=" + id + " size=5"),
        log.get(1));
    assertTrue(log.get(2).contains("type=item_get key=foo status=found"), log.get(2));
    long first = gid(log.get(0));
    assertTrue(gid(log.get(1)) > first && gid(log.get(2)) > gid(log.get(1)));
  }

  private static long gid(String line) {
    Matcher m = Pattern.compile("gid=(\\d+)").matcher(line);
    assertTrue(m.find());
    return Long.parseLong(m.group(1));
  }

  @Test
  void mutationsShowEachOutcomeAndEncodeTheKey() {
    TestServer.Connection client = server.memcache();
    long id = idOf(client);
    TestServer.Connection watcher = server.memcache();
    assertEquals("OK\r\n", watcher.raw("watch mutations\r\n"));
    String key = "#".repeat(250);
    client.raw("set " + key + " 0 0 9\r\nmemcached\r\n");
    client.raw("set a 0 100 1\r\n1\r\n");
    client.raw("add a 0 0 1\r\n2\r\n");
    client.raw("cas a 0 0 1 999999\r\n3\r\n");
    client.raw("ms b 2 T30\r\nhi\r\n");
    client.raw("get a\r\n");
    List<String> log = lines(watcher.read());
    assertEquals(5, log.size(), "fetches are not mutations: " + log);
    String[] words = log.get(0).split(" ", -1);
    assertEquals("key=" + "%23".repeat(250), words[3]);
    assertTrue(
        log.get(0).endsWith(" status=stored cmd=set ttl=0 clsid=1 cfd=" + id + " size=9"),
        log.get(0));
    assertTrue(log.get(1).contains("key=a status=stored cmd=set ttl=100 "), log.get(1));
    assertTrue(log.get(2).contains("key=a status=not_stored cmd=add "), log.get(2));
    assertTrue(log.get(3).contains("key=a status=exists cmd=cas "), log.get(3));
    assertTrue(log.get(4).contains("key=b status=stored cmd=set ttl=30 "), log.get(4));
  }

  @Test
  void connectionEventsNameTheReason() {
    TestServer.Connection watcher = server.memcache();
    assertEquals("OK\r\n", watcher.raw("watch connevents\r\n"));
    TestServer.Connection client = server.memcache();
    long id = idOf(client);
    client.raw("quit\r\n");
    client.channel.close().syncUninterruptibly();
    List<String> log = lines(watcher.read());
    assertEquals(2, log.size(), log.toString());
    assertTrue(
        log.get(0).matches(HEAD + "type=conn_new rip=\\S+ rport=\\S+ transport=tcp cfd=" + id),
        log.get(0));
    assertTrue(
        log.get(1)
            .matches(
                HEAD + "type=conn_close rip=\\S+ rport=\\S+ transport=tcp reason=normal cfd=" + id),
        log.get(1));
  }

  @Test
  void unknownKindIsAnError() {
    TestServer.Connection watcher = server.memcache();
    assertEquals("ERROR\r\n", watcher.raw("watch fetchers bogus\r\n"));
    TestServer.Connection client = server.memcache();
    client.raw("get foo\r\n");
    assertEquals("", watcher.read(), "a refused watch watches nothing");
  }

  @Test
  void aWatcherThatDoesNotReadLosesLinesAndIsToldHowMany() {
    TestServer.Connection client = server.memcache();
    TestServer.Connection watcher = server.memcache();
    assertEquals("OK\r\n", watcher.raw("watch\r\n"));
    String key = "k".repeat(200);
    // about 280 bytes a line: far past the buffer while the watcher's loop has not run
    int gets = (int) (3 * MemcacheWatchers.BUFFER / 280);
    for (int i = 0; i < gets; i++) {
      client.raw("get " + key + "\r\n");
    }
    String held = watcher.read();
    int delivered = count(held);
    assertTrue(delivered > 0 && delivered < gets, "delivered " + delivered + " of " + gets);
    assertTrue(held.length() <= MemcacheWatchers.BUFFER);
    client.raw("get after\r\n");
    List<String> next = lines(watcher.read());
    assertEquals("skipped=" + (gets - delivered), next.get(0));
    assertTrue(next.get(1).contains("type=item_get key=after "), next.get(1));
    String stats = client.raw("stats\r\n");
    assertTrue(stats.contains("STAT log_watcher_skipped " + (gets - delivered) + "\r\n"), stats);
    assertTrue(stats.contains("STAT log_watchers 1\r\n"), stats);
  }

  @Test
  void evictionsAreLogged() {
    try (TestServer small = new TestServer(Map.of("maxmemory", "1mb"))) {
      TestServer.Connection client = small.memcache();
      TestServer.Connection watcher = small.memcache();
      assertEquals("OK\r\n", watcher.raw("watch evictions\r\n"));
      String value = "v".repeat(10_000);
      for (int i = 0; i < 300; i++) {
        client.raw("set key" + i + " 0 0 " + value.length() + " noreply\r\n" + value + "\r\n");
      }
      String log = watcher.read();
      assertTrue(
          Pattern.compile("(?m)^" + HEAD + "type=eviction key=key\\d+ clsid=1$")
              .matcher(log)
              .find(),
          log);
      Matcher evictions = Pattern.compile("STAT evictions (\\d+)").matcher(client.raw("stats\r\n"));
      assertTrue(evictions.find());
      assertEquals(Long.parseLong(evictions.group(1)), count(log));
    }
  }

  @Test
  void watcherGoesAwayWithItsConnection() {
    TestServer.Connection client = server.memcache();
    TestServer.Connection watcher = server.memcache();
    watcher.raw("watch fetchers\r\n");
    assertTrue(client.raw("stats\r\n").contains("STAT log_watchers 1\r\n"));
    watcher.channel.close().syncUninterruptibly();
    assertTrue(client.raw("stats\r\n").contains("STAT log_watchers 0\r\n"));
    assertEquals("END\r\n", client.raw("get foo\r\n"));
  }

  @Test
  void uriEncodingKeepsUnreservedCharacters() {
    assertEquals(
        "aZ09-._~%20%25%23%FF",
        MemcacheWatchers.uriEncoded(
            new byte[] {'a', 'Z', '0', '9', '-', '.', '_', '~', ' ', '%', '#', (byte) 0xFF}));
  }
}
