package dev.larder.server.internal.memcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One reply for each request, as memcached 1.6.18 gives them: requests a client may send by mistake
 * must not swallow the next line, skip gigabytes of input, or answer where memcached stays silent.
 * Each expected reply was read from memcached 1.6.18 on loopback.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MemcacheRepliesInStepTest {
  private final TestServer server =
      new TestServer(Map.of("max-item-bytes", "2kb", "max-request-bytes", "64kb"));
  private final TestServer.Connection c = server.memcache();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void aCasWithoutItsUniqueIsAnErrorAndTheNextLineIsServed() {
    assertEquals("ERROR\r\nVERSION 1.6.0\r\n", c.raw("cas foo 0 0 6 \r\nversion\r\n"));
    assertEquals("ERROR\r\nVERSION 1.6.0\r\n", c.raw("cas foo 0 0 6\r\nversion\r\n"));
    assertEquals("ERROR\r\nVERSION 1.6.0\r\n", c.raw("set foo 0 0\r\nversion\r\n"));
    assertEquals(
        "ERROR\r\nERROR\r\nVERSION 1.6.0\r\n",
        c.raw("set k 0 0 1 foo bar\r\na\r\nversion\r\n"),
        "too many words: no data block");
    assertEquals("STORED\r\n", c.raw("set k 0 0 1 foo\r\na\r\n"), "a sixth word is ignored");
  }

  @Test
  void aLengthBeyondMemcachedsRangeIsABadCommandLineNotASkip() {
    String bad = "CLIENT_ERROR bad command line format\r\nVERSION 1.6.0\r\n";
    assertEquals(bad, c.raw("set k 0 0 4294967295\r\nversion\r\n"));
    assertEquals(bad, c.raw("set k 0 0 2147483646\r\nversion\r\n"));
    assertEquals(bad, c.raw("set k 0 0 99999999999\r\nversion\r\n"));
    assertEquals(bad, c.raw("set k 0 0 -1\r\nversion\r\n"));
    assertTrue(c.channel.isOpen());
  }

  @Test
  void aTooLargeItemWithinTheRequestLimitIsSkippedAndAnnounced() {
    String tooLarge = "SERVER_ERROR object too large for cache\r\n";
    assertEquals(
        tooLarge + "VERSION 1.6.0\r\n",
        c.raw("set k 0 0 5000\r\n" + "x".repeat(5000) + "\r\nversion\r\n"));
    assertEquals(
        "VERSION 1.6.0\r\n",
        c.raw("set k 0 0 5000 noreply\r\n" + "x".repeat(5000) + "\r\nversion\r\n"),
        "noreply: no error either, as memcached");
  }

  @Test
  void aTooLargeItemBeyondTheRequestLimitIsAnnouncedAndTheConnectionClosed() {
    assertEquals(
        "SERVER_ERROR object too large for cache\r\n",
        c.raw("set k 0 0 2147483645\r\nversion\r\n"));
    assertFalse(c.channel.isOpen(), "closed rather than skipping 2 GiB of input");
  }

  @Test
  void aTooLargeSetRemovesTheOldValueAsMemcachedDoes() {
    c.raw("set k 0 0 1\r\na\r\n");
    c.raw("set k 0 0 5000\r\n" + "x".repeat(5000) + "\r\n");
    assertEquals("END\r\n", c.raw("get k\r\n"));
    c.raw("set k 0 0 1\r\na\r\n");
    c.raw("ms k 5000 MA\r\n" + "x".repeat(5000) + "\r\n");
    assertEquals("END\r\n", c.raw("get k\r\n"), "ms removes it in any mode");
    for (String other : new String[] {"append k 0 0", "add k 0 0", "replace k 0 0"}) {
      c.raw("set k 0 0 1\r\na\r\n");
      assertEquals(
          "SERVER_ERROR object too large for cache\r\n",
          c.raw(other + " 5000\r\n" + "x".repeat(5000) + "\r\n"));
      assertEquals("VALUE k 0 1\r\na\r\nEND\r\n", c.raw("get k\r\n"), other + " keeps it");
    }
  }

  @Test
  void metaGetWithNAutovivifiesWinsTheRecacheAndOthersSeeZ() {
    assertEquals("HD W\r\nMN\r\n", c.raw("mg nk N30 q\r\nmn\r\n"));
    assertEquals("VA 0 s0 t30 Z\r\n\r\n", c.raw("mg nk v s t\r\n"), "the token is out");
    assertEquals("VA 0 Z\r\n\r\n", c.raw("mg nk v N30\r\n"), "a second N does not win");
    assertEquals("HD\r\n", c.raw("ms nk 1\r\na\r\n"));
    assertEquals("VA 1\r\na\r\n", c.raw("mg nk v\r\n"), "filled: no Z");
    assertEquals("VA 0 s0 f0 t30 knk4 W\r\n\r\nMN\r\n", c.raw("mg nk4 N30 s v f t k q\r\nmn\r\n"));
    server.now.addAndGet(31_000);
    assertEquals("EN\r\n", c.raw("mg nk4 v\r\n"), "the vivified item has the N TTL");
  }

  @Test
  void deleteWithABadArgumentAndNoreplyStaysSilent() {
    c.raw("set k 0 0 1\r\na\r\n");
    assertEquals("", c.raw("delete k 10 noreply\r\n"));
    assertEquals("VALUE k 0 1\r\na\r\nEND\r\n", c.raw("get k\r\n"), "and deletes nothing");
    assertEquals(
        "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n",
        c.raw("delete k 10\r\n"));
    assertEquals("", c.raw("delete k 0 noreply\r\n"));
    assertEquals("END\r\n", c.raw("get k\r\n"));
  }

  @Test
  void flushAllAtAnAbsoluteUnixTime() {
    long nowSeconds = TestServer.START / 1000;
    c.raw("set k 0 0 1\r\na\r\n");
    assertEquals("OK\r\n", c.raw("flush_all " + (nowSeconds - 100) + "\r\n"));
    assertEquals("END\r\n", c.raw("get k\r\n"), "a time past is now");
    c.raw("set k 0 0 1\r\na\r\n");
    assertEquals("OK\r\n", c.raw("flush_all " + (nowSeconds + 1) + "\r\n"));
    assertEquals("VALUE k 0 1\r\na\r\nEND\r\n", c.raw("get k\r\n"), "not yet");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!c.raw("get k\r\n").equals("END\r\n") && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertEquals("END\r\n", c.raw("get k\r\n"), "flushed a second later");
    assertEquals("CLIENT_ERROR invalid exptime argument\r\n", c.raw("flush_all x\r\n"));
  }

  @Test
  void verbosityChecksItsLevel() {
    assertEquals("CLIENT_ERROR bad command line format\r\n", c.raw("verbosity invalid\r\n"));
    assertEquals("CLIENT_ERROR bad command line format\r\n", c.raw("verbosity -1\r\n"));
    assertEquals("ERROR\r\n", c.raw("verbosity\r\n"));
    assertEquals("OK\r\n", c.raw("verbosity 1\r\n"));
    assertEquals("", c.raw("verbosity 1 noreply\r\n"));
    assertEquals("", c.raw("verbosity x noreply\r\n"));
  }
}
