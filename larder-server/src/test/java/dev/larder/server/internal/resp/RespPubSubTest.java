package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * SUBSCRIBE, PSUBSCRIBE, PUBLISH and PUBSUB on the wire, in RESP2 and RESP3, as Redis 7 answers.
 */
class RespPubSubTest {

  @Test
  void resp2SubscribeRepliesAndMessages() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection sub = server.resp();
      TestServer.Connection pub = server.resp();
      assertEquals(
          "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n",
          sub.cmd("SUBSCRIBE", "a", "b"));
      assertEquals("*3\r\n$10\r\npsubscribe\r\n$2\r\nn*\r\n:3\r\n", sub.cmd("PSUBSCRIBE", "n*"));
      assertEquals(":1\r\n", pub.cmd("PUBLISH", "a", "hello"));
      assertEquals(":0\r\n", pub.cmd("PUBLISH", "c", "nobody"));
      assertEquals(":1\r\n", pub.cmd("PUBLISH", "news", "x"));
      assertEquals(
          """
          *3\r
          $7\r
          message\r
          $1\r
          a\r
          $5\r
          hello\r
          *4\r
          $8\r
          pmessage\r
          $2\r
          n*\r
          $4\r
          news\r
          $1\r
          x\r
          """,
          sub.read());
      assertEquals(
          "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET"
              + " are allowed in this context\r\n",
          sub.cmd("GET", "k"));
      assertEquals("*2\r\n$4\r\npong\r\n$0\r\n\r\n", sub.cmd("PING"));
      assertEquals("*2\r\n$4\r\npong\r\n$2\r\nhi\r\n", sub.cmd("PING", "hi"));
      assertEquals("*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:2\r\n", sub.cmd("UNSUBSCRIBE", "a"));
      assertEquals(":0\r\n", pub.cmd("PUBLISH", "a", "gone"));
      assertEquals("", sub.read());
      assertEquals("*3\r\n$12\r\npunsubscribe\r\n$2\r\nn*\r\n:1\r\n", sub.cmd("PUNSUBSCRIBE"));
      assertEquals("*3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:0\r\n", sub.cmd("UNSUBSCRIBE"));
      assertEquals(
          "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n", sub.cmd("UNSUBSCRIBE"), "none left");
      assertEquals("+PONG\r\n", sub.cmd("PING"), "out of the subscribed context");
    }
  }

  @Test
  void resp3UsesPushFramesAndAllowsOtherCommands() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection sub = server.resp();
      TestServer.Connection pub = server.resp();
      sub.cmd("HELLO", "3");
      assertEquals(">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n", sub.cmd("SUBSCRIBE", "ch"));
      assertEquals("_\r\n", sub.cmd("GET", "k"));
      assertEquals("+PONG\r\n", sub.cmd("PING"));
      pub.cmd("PUBLISH", "ch", "m1");
      assertEquals(">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nm1\r\n", sub.read());
      assertEquals(
          ">3\r\n$11\r\nunsubscribe\r\n$2\r\nch\r\n:0\r\n>3\r\n$11\r\nunsubscribe\r\n_\r\n:0\r\n",
          sub.cmd("UNSUBSCRIBE", "ch") + sub.cmd("UNSUBSCRIBE"));
    }
  }

  @Test
  void pubsubIntrospection() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection a = server.resp();
      TestServer.Connection b = server.resp();
      TestServer.Connection q = server.resp();
      a.cmd("SUBSCRIBE", "news.1", "sport");
      b.cmd("SUBSCRIBE", "news.1");
      b.cmd("PSUBSCRIBE", "news.*", "x*");
      a.cmd("PSUBSCRIBE", "news.*");
      assertEquals(":2\r\n", q.cmd("PUBSUB", "NUMPAT"));
      assertEquals(
          "*4\r\n$6\r\nnews.1\r\n:2\r\n$4\r\nnone\r\n:0\r\n",
          q.cmd("PUBSUB", "NUMSUB", "news.1", "none"));
      assertEquals("*1\r\n$6\r\nnews.1\r\n", q.cmd("PUBSUB", "CHANNELS", "news*"));
      assertEquals(2, q.cmd("PUBSUB", "CHANNELS").split("\\$").length - 1);
      assertEquals(":4\r\n", q.cmd("PUBLISH", "news.1", "m"), "two exact, two by pattern");
      assertTrue(q.cmd("PUBSUB", "HELP").startsWith("*10\r\n+PUBSUB <subcommand>"));
      a.channel.close().syncUninterruptibly();
      assertEquals(
          "*2\r\n$6\r\nnews.1\r\n:1\r\n", q.cmd("PUBSUB", "NUMSUB", "news.1"), "closed: left");
      assertEquals(":2\r\n", q.cmd("PUBSUB", "NUMPAT"), "b still has both patterns");
      b.cmd("RESET");
      assertEquals(":0\r\n", q.cmd("PUBSUB", "NUMPAT"));
      assertEquals("*0\r\n", q.cmd("PUBSUB", "CHANNELS"));
    }
  }

  @Test
  void aMessageQueuedBeforeAnUnsubscribeArrivesBeforeItsReply() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection sub = server.resp();
      TestServer.Connection pub = server.resp();
      sub.cmd("SUBSCRIBE", "a");
      // Queued for sub, not yet written (its loop has not run its tasks).
      pub.channel.writeInbound(
          io.netty.buffer.Unpooled.copiedBuffer(
              TestServer.Connection.multibulk("PUBLISH", "a", "late"),
              java.nio.charset.StandardCharsets.ISO_8859_1));
      assertEquals(
          """
          *3\r
          $7\r
          message\r
          $1\r
          a\r
          $4\r
          late\r
          *3\r
          $11\r
          unsubscribe\r
          $1\r
          a\r
          :0\r
          """,
          sub.cmd("UNSUBSCRIBE", "a"));
      assertEquals("", sub.read());
    }
  }

  @Test
  void clientReplyOffDropsRepliesButNotSubscriptionNoticesOrMessages() {
    try (TestServer server = new TestServer(Map.of("notify-keyspace-events", "KA"))) {
      TestServer.Connection sub = server.resp();
      TestServer.Connection c = server.resp();
      assertEquals("", sub.cmd("CLIENT", "REPLY", "OFF"));
      assertEquals("", sub.cmd("GET", "k"));
      assertEquals("*3\r\n$10\r\npsubscribe\r\n$1\r\n*\r\n:1\r\n", sub.cmd("PSUBSCRIBE", "*"));
      c.cmd("SET", "foo", "bar");
      assertEquals(
          "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$18\r\n__keyspace@0__:foo\r\n$3\r\nset\r\n",
          sub.read());
      assertEquals("", c.cmd("CLIENT", "REPLY", "SKIP"));
      assertEquals("", c.cmd("GET", "foo"));
      assertEquals("$3\r\nbar\r\n", c.cmd("GET", "foo"));
      c.cmd("CLIENT", "REPLY", "OFF");
      assertEquals("+OK\r\n", c.cmd("CLIENT", "REPLY", "ON"));
    }
  }

  @Test
  void keyspaceNotificationsSettingIsReadAndChangedByConfig() {
    try (TestServer server = new TestServer(Map.of("notify-keyspace-events", "KEA"))) {
      TestServer.Connection c = server.resp();
      assertEquals(
          "*2\r\n$22\r\nnotify-keyspace-events\r\n$3\r\nAKE\r\n",
          c.cmd("CONFIG", "GET", "notify-keyspace-events"));
      assertEquals("+OK\r\n", c.cmd("CONFIG", "SET", "notify-keyspace-events", "Eg$x"));
      assertEquals(
          "*2\r\n$22\r\nnotify-keyspace-events\r\n$4\r\ng$xE\r\n",
          c.cmd("CONFIG", "GET", "notify-keyspace-events"));
      assertEquals(
          "-ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') -"
              + " Invalid event class character. Use 'Ag$lshzxeKEtmdn'.\r\n",
          c.cmd("CONFIG", "SET", "notify-keyspace-events", "Q"));
    }
  }
}
