package dev.larder.server.internal.memcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code lru_crawler metadump} and {@code watch} behind other commands of the same read: refused
 * while memcached would still hold an earlier reply unsent, served after the commands that write
 * memcached's replies out (the get family when it succeeds, {@code mn}). Each {@code raw} call is
 * one read of the connection.
 */
class MemcacheHeldRepliesTest {
  private static final String REFUSED = "ERROR cannot pipeline other commands before metadump\r\n";
  private static final String V = "VERSION " + TextCommands.VERSION + "\r\n";
  private static final String DUMP = "key=k exp=-1 la=L cas=N fetch=F cls=1 size=2\nEND\r\n";

  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.memcache();

  @BeforeEach
  void item() {
    assertEquals("STORED\r\n", c.raw("set k 0 0 1\r\nx\r\n"));
  }

  @AfterEach
  void close() {
    server.close();
  }

  private static String cas(String reply) {
    return reply
        .replaceAll("la=\\d+", "la=L")
        .replaceAll("cas=\\d+", "cas=N")
        .replaceAll("fetch=(yes|no)", "fetch=F");
  }

  @Test
  void aMetadumpAloneInItsReadIsServed() {
    assertEquals(DUMP, cas(c.raw("lru_crawler metadump all\r\n")));
    assertEquals(V, c.raw("version\r\n"));
    assertEquals(DUMP, cas(c.raw("lru_crawler metadump all\r\n")), "a new read, a new batch");
  }

  @Test
  void behindAReplyStillHeldItIsRefused() {
    assertEquals("EN\r\n" + REFUSED, c.raw("mg missing v\r\nlru_crawler metadump all\r\n"));
    assertEquals(V + REFUSED, c.raw("version\r\nlru_crawler metadump 1\r\n"));
    assertEquals("TOUCHED\r\n" + REFUSED, c.raw("touch k 0\r\nlru_crawler metadump all\r\n"));
    assertEquals("ERROR\r\n" + REFUSED, c.raw("bogus\r\nlru_crawler metadump all\r\n"));
    assertEquals(
        V + REFUSED + REFUSED,
        c.raw("version\r\n" + "lru_crawler metadump all\r\n".repeat(2)),
        "a refusal is a held reply too");
  }

  @Test
  void aNoreplyOrQuietRequestHoldsItsEmptyReply() {
    assertEquals(REFUSED, c.raw("set n 0 0 1 noreply\r\ny\r\nlru_crawler metadump all\r\n"));
    assertEquals(REFUSED, c.raw("mg missing v q\r\nlru_crawler metadump all\r\n"));
  }

  @Test
  void theRefusalComesBeforeTheClassListIsRead() {
    assertEquals("EN\r\n" + REFUSED, c.raw("mg missing v\r\nlru_crawler metadump 0\r\n"));
    assertEquals(
        "EN\r\nERROR\r\n",
        c.raw("mg missing v\r\nlru_crawler metadump all extra\r\n"),
        "not a metadump: memcached's ERROR");
  }

  @Test
  void aSuccessfulGetOrMnWritesTheHeldRepliesOut() {
    assertEquals("END\r\n" + DUMP, cas(c.raw("get missing\r\nlru_crawler metadump all\r\n")));
    assertEquals(
        "VALUE k 0 1 N\r\nx\r\nEND\r\n" + DUMP,
        cas(c.raw("gets k\r\nlru_crawler metadump all\r\n"))
            .replaceAll("VALUE k 0 1 \\d+", "VALUE k 0 1 N"));
    assertEquals(
        "VALUE k 0 1\r\nx\r\nEND\r\n" + DUMP,
        cas(c.raw("gat 0 k\r\nlru_crawler metadump all\r\n")));
    assertEquals("MN\r\n" + DUMP, cas(c.raw("mn\r\nlru_crawler metadump all\r\n")));
    assertEquals(
        "VERSION " + TextCommands.VERSION + "\r\nMN\r\n" + DUMP,
        cas(c.raw("version\r\nmn\r\nlru_crawler metadump all\r\n")));
    assertEquals(
        "MN\r\nEN\r\n" + REFUSED,
        c.raw("mn\r\nmg missing v\r\nlru_crawler metadump all\r\n"),
        "held again by the request after mn");
  }

  @Test
  void aFailedGetWritesNothingOut() {
    String tooLong = "k".repeat(251);
    assertEquals(
        "CLIENT_ERROR bad command line format\r\n" + REFUSED,
        c.raw("get " + tooLong + "\r\nlru_crawler metadump all\r\n"));
    assertEquals(
        "CLIENT_ERROR invalid exptime argument\r\n" + REFUSED,
        c.raw("gat x k\r\nlru_crawler metadump all\r\n"));
    assertEquals("ERROR\r\n" + REFUSED, c.raw("get\r\nlru_crawler metadump all\r\n"));
  }

  @Test
  void commandsAfterAMetadumpAreServedBehindIt() {
    assertEquals(DUMP + V, cas(c.raw("lru_crawler metadump all\r\nversion\r\n")));
    assertEquals(
        DUMP + DUMP,
        cas(c.raw("lru_crawler metadump all\r\nlru_crawler metadump all\r\n")),
        "the crawler wrote the first dump out");
  }

  @Test
  void watchIsRefusedTheSameWay() {
    assertEquals(
        V + "ERROR cannot pipeline other commands before watch\r\n", c.raw("version\r\nwatch\r\n"));
    TestServer.Connection client = server.memcache();
    client.raw("get foo\r\n");
    assertEquals("", c.read(), "a refused watch watches nothing");
    assertEquals("OK\r\n", c.raw("watch\r\n"), "alone in its read");
    client.raw("get foo\r\n");
    assertTrue(c.read().contains("type=item_get key=foo"), "watching now");
  }

  @Test
  void badClassesAreMemcachedsReplies() {
    assertEquals("BADCLASS invalid class id\r\n", c.raw("lru_crawler metadump 64\r\n"));
    assertEquals("BADCLASS invalid class id\r\n", c.raw("lru_crawler metadump 1,x\r\n"));
    assertEquals("NOTSTARTED no items to crawl\r\n", c.raw("lru_crawler metadump ,\r\n"));
    assertEquals(DUMP, cas(c.raw("lru_crawler metadump 2,,1\r\n")), "empty parts skipped");
    assertEquals("END\r\n", c.raw("lru_crawler metadump 2,63\r\n"));
  }
}
