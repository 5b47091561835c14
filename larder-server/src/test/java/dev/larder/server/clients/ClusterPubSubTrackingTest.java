package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Pub/sub and client-side caching across the members of a 3-member cluster, with raw RESP
 * connections: a PUBLISH on one member reaches subscribers on the others (and returns the count of
 * its own member's receivers); keyspace notifications stay on the member that ran the command; a
 * tracking client on one member is told of changes, expiry and flushes made through another, in
 * default, BCAST and OPTIN modes, as RESP3 pushes and through a RESP2 redirect; and when a member
 * leaves, the others' tracking clients are told to drop everything.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterPubSubTrackingTest {
  private static LoopbackCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = new LoopbackCluster(3);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  /**
   * A connection whose reads wait up to 30 s: a bound for a test that fails, never a wait a passing
   * run makes (what a test reads was sent already, or is on its way without a timer).
   */
  private static RespSocket connect(int member) {
    return new RespSocket(cluster.member(member).respPort(), 30_000);
  }

  private static RespSocket resp3(int member) {
    RespSocket c = connect(member);
    c.call("HELLO", "3");
    return c;
  }

  private static List<Object> list(Object... items) {
    return Arrays.asList(items);
  }

  private static RespSocket.Push invalidate(String... keys) {
    return new RespSocket.Push(list("invalidate", List.of((Object[]) keys)));
  }

  @Test
  @Order(1)
  void aPublishOnOneMemberReachesSubscribersOnEveryMember() {
    try (RespSocket sub1 = connect(1);
        RespSocket sub2 = resp3(2);
        RespSocket pub0 = connect(0);
        RespSocket pub1 = connect(1)) {
      assertEquals(list("subscribe", "news", 1L), sub1.call("SUBSCRIBE", "news"));
      assertEquals(
          new RespSocket.Push(list("psubscribe", "n*", 1L)), sub2.call("PSUBSCRIBE", "n*"));
      for (int i = 0; i < 3; i++) {
        assertEquals(0L, pub0.call("PUBLISH", "news", "m" + i), "member 0 has no subscriber");
      }
      assertEquals(1L, pub1.call("PUBLISH", "news", "m3"), "the count is the member's own");
      // Member 0's messages arrive in the order it published them; member 1's own message may
      // come before, between or after them (PUBLISH does not wait for other members' delivery).
      List<Object> viaSubscribe = new ArrayList<>();
      List<Object> viaPattern = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        viaSubscribe.add(sub1.read());
        viaPattern.add(sub2.read());
      }
      List<Object> expectedSubscribe = new ArrayList<>();
      List<Object> expectedPattern = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        expectedSubscribe.add(list("message", "news", "m" + i));
        expectedPattern.add(new RespSocket.Push(list("pmessage", "n*", "news", "m" + i)));
      }
      assertTrue(viaSubscribe.remove(list("message", "news", "m3")), viaSubscribe::toString);
      assertTrue(
          viaPattern.remove(new RespSocket.Push(list("pmessage", "n*", "news", "m3"))),
          viaPattern::toString);
      assertEquals(expectedSubscribe, viaSubscribe);
      assertEquals(expectedPattern, viaPattern);
      assertEquals(list("news", 0L), pub0.call("PUBSUB", "NUMSUB", "news"), "member-local");
      assertEquals(list("news", 1L), pub1.call("PUBSUB", "NUMSUB", "news"));
      assertEquals(0L, pub1.call("PUBSUB", "NUMPAT"));
    }
  }

  @Test
  @Order(2)
  void keyspaceEventsArePublishedOnTheMemberThatRanTheCommand() {
    try (RespSocket config0 = connect(0);
        RespSocket config1 = connect(1);
        RespSocket sub0 = connect(0);
        RespSocket sub1 = connect(1);
        RespSocket w1 = connect(1)) {
      assertEquals("OK", config0.call("CONFIG", "SET", "notify-keyspace-events", "E$"));
      assertEquals("OK", config1.call("CONFIG", "SET", "notify-keyspace-events", "E$"));
      try {
        sub0.call("PSUBSCRIBE", "__keyevent@0__:*");
        sub1.call("PSUBSCRIBE", "__keyevent@0__:*");
        assertEquals("OK", w1.call("SET", "ke:a", "1"));
        assertEquals(
            list("pmessage", "__keyevent@0__:*", "__keyevent@0__:set", "ke:a"), sub1.read());
        // one member's messages reach the others in its order: the marker arrives on member 0
        // with no event before it
        w1.call("PUBLISH", "__keyevent@0__:marker", "end");
        assertEquals(
            list("pmessage", "__keyevent@0__:*", "__keyevent@0__:marker", "end"), sub0.read());
      } finally {
        config0.call("CONFIG", "SET", "notify-keyspace-events", "");
        config1.call("CONFIG", "SET", "notify-keyspace-events", "");
      }
    }
  }

  @Test
  @Order(3)
  void defaultModeIsToldOfChangesExpiryAndFlushesThroughOtherMembers() {
    try (RespSocket t = resp3(1);
        RespSocket w0 = connect(0);
        RespSocket w2 = connect(2)) {
      w0.call("SET", "tr:a", "1");
      assertEquals("OK", t.call("CLIENT", "TRACKING", "ON"));
      assertEquals("1", t.call("GET", "tr:a"));
      assertEquals("OK", w0.call("SET", "tr:a", "2"));
      assertEquals(invalidate("tr:a"), t.read());
      assertEquals("2", t.call("GET", "tr:a"));
      assertEquals(1L, w2.call("DEL", "tr:a"));
      assertEquals(invalidate("tr:a"), t.read());
      String expiring = readBeforeItExpires(t, w0);
      assertEquals(invalidate(expiring), next(t, expiring), "expired, swept by its primary");
      t.send("GET", "tr:a");
      assertNull(next(t, expiring), "deleted above; read again to be tracked");
      assertEquals("OK", w2.call("FLUSHALL"));
      assertEquals(new RespSocket.Push(list("invalidate", null)), next(t, expiring));
    }
  }

  /**
   * Writes a key with a time to live through {@code writer} and has the tracking client read it
   * before it expires; returns the key. On a slow machine the read may come after the expiry (it
   * then reads nothing and the key may be swept before or after the read registers it): each try
   * writes a new key with four times the time to live, so a passing run normally waits 1 s.
   */
  private static String readBeforeItExpires(RespSocket tracking, RespSocket writer) {
    for (long ttl = 1_000; ; ttl *= 4) {
      String key = "tr:e" + ttl;
      assertEquals("OK", writer.call("SET", key, "1", "PX", Long.toString(ttl)));
      tracking.send("GET", key);
      if ("1".equals(next(tracking, key))) {
        return key;
      }
      assertTrue(ttl < 16_000, "the client never read " + key + " before it expired");
    }
  }

  /**
   * Reads the next value on a tracking connection, passing over invalidations of the keys that
   * tries of {@link #readBeforeItExpires} before the one that wrote {@code key} wrote.
   */
  private static Object next(RespSocket tracking, String key) {
    while (true) {
      Object v = tracking.read();
      if (!(v instanceof RespSocket.Push p && isEarlierTry(p, key))) {
        return v;
      }
    }
  }

  private static boolean isEarlierTry(RespSocket.Push p, String key) {
    return p.items().size() == 2
        && "invalidate".equals(p.items().get(0))
        && p.items().get(1) instanceof List<?> keys
        && keys.size() == 1
        && keys.getFirst() instanceof String k
        && k.startsWith("tr:e")
        && !k.equals(key);
  }

  @Test
  @Order(4)
  void broadcastModeIsToldOfEveryChangeUnderItsPrefixes() {
    try (RespSocket t = resp3(2);
        RespSocket w0 = connect(0)) {
      assertEquals("OK", t.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "bc:"));
      w0.call("SET", "bc:1", "x");
      w0.call("SET", "other", "x");
      w0.call("MSET", "bc:2", "y", "bc:3", "z");
      assertEquals(invalidate("bc:1"), t.read());
      assertEquals(invalidate("bc:2", "bc:3"), t.read(), "one message per command and prefix");
    }
  }

  @Test
  @Order(5)
  void optinTracksOnlyWhatWasReadAfterCachingYes() {
    try (RespSocket t = resp3(0);
        RespSocket w1 = connect(1)) {
      assertEquals("OK", t.call("CLIENT", "TRACKING", "ON", "OPTIN"));
      t.call("GET", "oi:skipped");
      assertEquals("OK", t.call("CLIENT", "CACHING", "YES"));
      t.call("GET", "oi:kept");
      w1.call("SET", "oi:skipped", "1");
      w1.call("SET", "oi:kept", "1");
      assertEquals(invalidate("oi:kept"), t.read());
    }
  }

  @Test
  @Order(6)
  void aResp2RedirectGetsInvalidationsOnTheInvalidateChannel() {
    try (RespSocket r = connect(1);
        RespSocket t = connect(1);
        RespSocket w2 = connect(2)) {
      long id = (Long) r.call("CLIENT", "ID");
      assertEquals(
          list("subscribe", "__redis__:invalidate", 1L),
          r.call("SUBSCRIBE", "__redis__:invalidate"));
      assertEquals("OK", t.call("CLIENT", "TRACKING", "ON", "REDIRECT", Long.toString(id)));
      t.call("GET", "rd:a");
      w2.call("SET", "rd:a", "1");
      assertEquals(list("message", "__redis__:invalidate", list("rd:a")), r.read());
    }
  }

  @Test
  @Order(7)
  void aMemberLeavingFlushesTheOthersTrackingClients() {
    try (RespSocket t = resp3(0);
        RespSocket w1 = connect(1)) {
      assertEquals("OK", t.call("CLIENT", "TRACKING", "ON"));
      t.call("GET", "lv:a");
      LarderServer leaving = cluster.member(2);
      leaving.close();
      assertEquals(
          new RespSocket.Push(list("invalidate", null)),
          t.read(),
          "member 2 may have died before telling its changes");
      // read the moment the flush is told, perhaps while member 0 is still flushing: the read's
      // registration must outlive the flush (TrackingTest forces that interleaving)
      assertNull(t.call("GET", "lv:a"));
      assertEquals("OK", w1.call("SET", "lv:a", "1"));
      assertEquals(invalidate("lv:a"), t.read(), "still told by the members that stay");
    }
  }
}
