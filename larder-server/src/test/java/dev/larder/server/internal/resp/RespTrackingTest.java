package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** CLIENT TRACKING in each mode: what is invalidated, to whom, and Redis's errors. */
class RespTrackingTest {
  private static String invalidate(String... keys) {
    StringBuilder sb = new StringBuilder(">2\r\n$10\r\ninvalidate\r\n*" + keys.length + "\r\n");
    for (String k : keys) {
      sb.append('$').append(k.length()).append("\r\n").append(k).append("\r\n");
    }
    return sb.toString();
  }

  private static TestServer.Connection resp3(TestServer server) {
    TestServer.Connection c = server.resp();
    c.cmd("HELLO", "3");
    return c;
  }

  @Test
  void defaultModeInvalidatesKeysReadOnceWhenTheyChange() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection t = resp3(server);
      TestServer.Connection w = server.resp();
      assertEquals("+OK\r\n", t.cmd("CLIENT", "TRACKING", "ON"));
      w.cmd("SET", "a", "1");
      w.cmd("SET", "b", "1");
      assertEquals("$1\r\n1\r\n", t.cmd("GET", "a"));
      w.cmd("SET", "b", "2");
      assertEquals("", t.read(), "b was not read");
      w.cmd("SET", "a", "2");
      assertEquals(invalidate("a"), t.read());
      w.cmd("SET", "a", "3");
      assertEquals("", t.read(), "once per read");
      t.cmd("MGET", "a", "b");
      w.cmd("DEL", "a", "b");
      assertEquals(invalidate("a") + invalidate("b"), t.read());
      t.cmd("GET", "x");
      w.cmd("SELECT", "5");
      w.cmd("SET", "x", "1");
      assertEquals(invalidate("x"), t.read(), "keys are names, in any database");
    }
  }

  @Test
  void ownChangesComeAfterTheReplyAndNoloopSkipsThem() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection t = resp3(server);
      t.cmd("CLIENT", "TRACKING", "ON");
      t.cmd("GET", "a");
      assertEquals("+OK\r\n" + invalidate("a"), t.cmd("SET", "a", "1"));
      t.cmd("CLIENT", "TRACKING", "ON", "NOLOOP");
      t.cmd("GET", "a");
      assertEquals("+OK\r\n", t.cmd("SET", "a", "2"));
    }
  }

  @Test
  void expiryEvictionAndFlushInvalidate() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection t = resp3(server);
      TestServer.Connection w = server.resp();
      t.cmd("CLIENT", "TRACKING", "ON");
      w.cmd("SET", "e", "1", "PX", "10");
      t.cmd("GET", "e");
      server.now.addAndGet(20);
      server.keyspace.sweepExpired(100);
      assertEquals(invalidate("e"), t.read());
      w.cmd("FLUSHALL");
      assertEquals(">2\r\n$10\r\ninvalidate\r\n_\r\n", t.read());
      w.cmd("FLUSHDB");
      assertEquals(">2\r\n$10\r\ninvalidate\r\n_\r\n", t.read());
    }
  }

  @Test
  void bcastSendsEveryChangeUnderItsPrefixes() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection t = resp3(server);
      TestServer.Connection w = server.resp();
      assertEquals(
          "+OK\r\n", t.cmd("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "user:", "PREFIX", "a"));
      w.cmd("SET", "user:1", "x");
      w.cmd("SET", "other", "x");
      w.cmd("SET", "abc", "x");
      assertEquals(invalidate("user:1") + invalidate("abc"), t.read());
      assertEquals(
          """
          %3\r
          $5\r
          flags\r
          ~2\r
          $2\r
          on\r
          $5\r
          bcast\r
          $8\r
          redirect\r
          :0\r
          $8\r
          prefixes\r
          *2\r
          $5\r
          user:\r
          $1\r
          a\r
          """,
          t.cmd("CLIENT", "TRACKINGINFO"));
      assertEquals(
          "-ERR Prefix 'ab' overlaps with an existing prefix 'a'. Prefixes for a single client"
              + " must not overlap.\r\n",
          t.cmd("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "ab"));
      TestServer.Connection all = resp3(server);
      all.cmd("CLIENT", "TRACKING", "ON", "BCAST");
      w.cmd("SET", "z", "1");
      assertEquals(invalidate("z"), all.read());
    }
  }

  @Test
  void optinAndOptoutFollowClientCaching() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection in = resp3(server);
      TestServer.Connection out = resp3(server);
      TestServer.Connection w = server.resp();
      in.cmd("CLIENT", "TRACKING", "ON", "OPTIN");
      out.cmd("CLIENT", "TRACKING", "ON", "OPTOUT");
      in.cmd("GET", "a");
      assertEquals("+OK\r\n", in.cmd("CLIENT", "CACHING", "YES"));
      in.cmd("GET", "b");
      in.cmd("GET", "c");
      out.cmd("GET", "a");
      out.cmd("CLIENT", "CACHING", "NO");
      out.cmd("GET", "b");
      w.cmd("MSET", "a", "1", "b", "1", "c", "1");
      assertEquals(invalidate("b"), in.read());
      assertEquals(invalidate("a"), out.read());
      assertEquals(
          "-ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.\r\n",
          in.cmd("CLIENT", "CACHING", "NO"));
      assertEquals(
          "-ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and"
              + " then re-enabling it with a different mode.\r\n",
          in.cmd("CLIENT", "TRACKING", "ON", "OPTOUT"));
    }
  }

  @Test
  void redirectToAResp2SubscriberOfTheInvalidateChannel() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection r = server.resp();
      TestServer.Connection t = server.resp();
      TestServer.Connection w = server.resp();
      String id = r.cmd("CLIENT", "ID").substring(1).trim();
      r.cmd("SUBSCRIBE", "__redis__:invalidate");
      assertEquals("+OK\r\n", t.cmd("CLIENT", "TRACKING", "ON", "REDIRECT", id));
      assertEquals(":" + id + "\r\n", t.cmd("CLIENT", "GETREDIR"));
      t.cmd("GET", "k");
      w.cmd("SET", "k", "v");
      assertEquals(
          "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\nk\r\n", r.read());
      w.cmd("FLUSHALL");
      assertEquals("*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*-1\r\n", r.read());
      assertEquals("", t.read());
      r.channel.close().syncUninterruptibly();
      t.cmd("GET", "k");
      w.cmd("SET", "k", "w");
      assertTrue(t.cmd("CLIENT", "TRACKINGINFO").contains("broken_redirect"));
      assertEquals(
          "-ERR The client ID you want redirect to does not exist\r\n",
          t.cmd("CLIENT", "TRACKING", "ON", "REDIRECT", "999"));
    }
  }

  @Test
  void anInvalidationQueuedBeforeARequestComesBeforeItsReply() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection t = resp3(server);
      TestServer.Connection w = server.resp();
      t.cmd("CLIENT", "TRACKING", "ON", "BCAST");
      w.cmd("SET", "k", "1");
      assertEquals(invalidate("k") + "+PONG\r\n", t.cmd("PING"));
    }
  }

  @Test
  void redisErrorsAndOff() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection t = resp3(server);
      assertEquals(":-1\r\n", t.cmd("CLIENT", "GETREDIR"));
      assertEquals(
          "-ERR PREFIX option requires BCAST mode to be enabled\r\n",
          t.cmd("CLIENT", "TRACKING", "ON", "PREFIX", "a"));
      assertEquals(
          "-ERR OPTIN and OPTOUT are not compatible with BCAST\r\n",
          t.cmd("CLIENT", "TRACKING", "ON", "BCAST", "OPTIN"));
      assertEquals(
          "-ERR You can't specify both OPTIN mode and OPTOUT mode\r\n",
          t.cmd("CLIENT", "TRACKING", "ON", "OPTIN", "OPTOUT"));
      assertEquals(
          "-ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN"
              + " or OPTOUT mode enabled\r\n",
          t.cmd("CLIENT", "CACHING", "YES"));
      assertEquals("-ERR syntax error\r\n", t.cmd("CLIENT", "TRACKING", "MAYBE"));
      t.cmd("CLIENT", "TRACKING", "ON");
      assertEquals(
          "-ERR You can't switch BCAST mode on/off before disabling tracking for this client, and"
              + " then re-enabling it with a different mode.\r\n",
          t.cmd("CLIENT", "TRACKING", "ON", "BCAST"));
      t.cmd("GET", "a");
      t.cmd("CLIENT", "TRACKING", "OFF");
      TestServer.Connection w = server.resp();
      w.cmd("SET", "a", "1");
      assertEquals("", t.read());
      assertEquals(
          """
          %3\r
          $5\r
          flags\r
          ~1\r
          $3\r
          off\r
          $8\r
          redirect\r
          :-1\r
          $8\r
          prefixes\r
          *0\r
          """,
          t.cmd("CLIENT", "TRACKINGINFO"));
    }
  }

  @Test
  void theTableIsBoundedAndEvictedKeysAreInvalidated() {
    try (TestServer server = new TestServer(Map.of("tracking-table-max-keys", "10"))) {
      TestServer.Connection t = resp3(server);
      t.cmd("CLIENT", "TRACKING", "ON");
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < 30; i++) {
        sb.append(t.cmd("GET", "k" + i));
      }
      assertTrue(server.state.tracking().keys() <= 10, server.state.tracking().keys() + " keys");
      String out = sb.append(t.read()).toString();
      assertEquals(20, out.split("invalidate").length - 1, out);
      TestServer.Connection admin = server.resp();
      admin.cmd("CONFIG", "SET", "tracking-table-max-keys", "2");
      assertEquals(2, server.state.tracking().keys(), "lowering the bound evicts at once");
      assertEquals(8, t.read().split("invalidate").length - 1);
    }
  }
}
