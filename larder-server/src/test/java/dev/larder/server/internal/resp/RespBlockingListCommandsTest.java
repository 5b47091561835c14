package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespClients.pending;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The blocking list commands through the real decoder and handler, several connections on one
 * server: who is served, in what order, with what reply; transactions; other types; closing.
 * Timeouts are {@code BlockingListClientsTest}'s (a real server's clock).
 */
class RespBlockingListCommandsTest {
  @AutoClose private final RespClients clients = new RespClients();
  private final TestServer.Connection a = clients.a;
  private final TestServer.Connection b = clients.b;
  private final TestServer.Connection writer = clients.writer;

  @Test
  void firstBlockedIsFirstServed() {
    assertEquals("", a.cmd("BLPOP", "q", "0"));
    assertEquals("", b.cmd("BLPOP", "q", "0"));
    assertEquals("2", clients.blockedClients());
    assertEquals(":2\r\n", writer.cmd("RPUSH", "q", "x", "y"));
    assertEquals("*2\r\n$1\r\nq\r\n$1\r\nx\r\n", pending(a));
    assertEquals("*2\r\n$1\r\nq\r\n$1\r\ny\r\n", pending(b));
    assertEquals(":0\r\n", writer.cmd("LLEN", "q"));
    assertEquals("0", clients.blockedClients());
  }

  @Test
  void onePushServesOneClientAndTheOtherWaits() {
    a.cmd("BRPOP", "q", "0");
    b.cmd("BRPOP", "q", "0");
    writer.cmd("LPUSH", "q", "x");
    assertEquals("*2\r\n$1\r\nq\r\n$1\r\nx\r\n", pending(a));
    assertEquals("", pending(b));
    writer.cmd("LPUSH", "q", "y");
    assertEquals("*2\r\n$1\r\nq\r\n$1\r\ny\r\n", pending(b));
  }

  @Test
  void requestsPipelinedBehindABlockedOneRunOnceItIsServed() {
    assertEquals("", a.raw(TestServer.Connection.multibulk("BLPOP", "q", "0") + "PING\r\n"));
    writer.cmd("RPUSH", "q", "v");
    assertEquals("*2\r\n$1\r\nq\r\n$1\r\nv\r\n+PONG\r\n", pending(a));
  }

  @Test
  void waitsOnSeveralKeysAndIsServedByTheOneWritten() {
    a.cmd("BLPOP", "k1", "k2", "k1", "0");
    writer.cmd("RPUSH", "k2", "v");
    assertEquals("*2\r\n$2\r\nk2\r\n$1\r\nv\r\n", pending(a));
    assertEquals("0", clients.blockedClients());
  }

  @Test
  void insideMultiNothingBlocks() {
    a.cmd("MULTI");
    a.cmd("BLPOP", "q", "0");
    a.cmd("BLMOVE", "q", "d", "LEFT", "LEFT", "0");
    a.cmd("BLMPOP", "0", "1", "q", "LEFT");
    assertEquals("*3\r\n*-1\r\n$-1\r\n*-1\r\n", a.cmd("EXEC"));
  }

  @Test
  void aTransactionsPushesAreServedAfterItsExec() {
    a.cmd("BLPOP", "q", "0");
    writer.cmd("MULTI");
    writer.cmd("LPUSH", "q", "a");
    writer.cmd("LPUSH", "q", "b");
    writer.cmd("LPUSH", "q", "c");
    assertEquals("*3\r\n:1\r\n:2\r\n:3\r\n", writer.cmd("EXEC"));
    assertEquals("*2\r\n$1\r\nq\r\n$1\r\nc\r\n", pending(a));
    // Pushed and deleted in one transaction: nothing to serve.
    b.cmd("BLPOP", "r", "0");
    writer.cmd("MULTI");
    writer.cmd("LPUSH", "r", "a");
    writer.cmd("DEL", "r");
    writer.cmd("EXEC");
    assertEquals("", pending(b));
    assertEquals("1", clients.blockedClients());
  }

  @Test
  void aKeyWrittenWithAnotherTypeLeavesItWaiting() {
    a.cmd("BLPOP", "q", "0");
    writer.cmd("SET", "q", "text");
    writer.cmd("HSET", "q2", "f", "v");
    writer.cmd("RENAME", "q2", "q");
    assertEquals("", pending(a));
    writer.cmd("DEL", "q");
    writer.cmd("RPUSH", "q", "v");
    assertEquals("*2\r\n$1\r\nq\r\n$1\r\nv\r\n", pending(a));
  }

  @Test
  void aListRenamedIntoPlaceServesIt() {
    a.cmd("BLPOP", "q", "0");
    writer.cmd("RPUSH", "other", "v");
    writer.cmd("RENAME", "other", "q");
    assertEquals("*2\r\n$1\r\nq\r\n$1\r\nv\r\n", pending(a));
  }

  @Test
  void blockedMoveServedAndItsWrongDestinationTypeAnswered() {
    a.cmd("BLMOVE", "src", "dst", "RIGHT", "LEFT", "0");
    writer.cmd("RPUSH", "src", "1", "2");
    assertEquals("$1\r\n2\r\n", pending(a));
    assertEquals("*1\r\n$1\r\n2\r\n", writer.cmd("LRANGE", "dst", "0", "-1"));
    // The element moved to dst serves a client blocked on dst in turn.
    writer.cmd("DEL", "src", "dst");
    a.cmd("BRPOPLPUSH", "src", "dst", "0");
    b.cmd("BLPOP", "dst", "0");
    writer.cmd("RPUSH", "src", "x");
    assertEquals("$1\r\nx\r\n", pending(a));
    assertEquals("*2\r\n$3\r\ndst\r\n$1\r\nx\r\n", pending(b));
    // A destination of another type: the error is the reply and the element stays.
    writer.cmd("SET", "dst", "text");
    a.cmd("BRPOPLPUSH", "src", "dst", "0");
    writer.cmd("RPUSH", "src", "y");
    assertEquals(
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", pending(a));
    assertEquals("*1\r\n$1\r\ny\r\n", writer.cmd("LRANGE", "src", "0", "-1"));
  }

  @Test
  void blockedMultiPopTakesUpToItsCount() {
    a.cmd("BLMPOP", "0", "2", "x", "q", "RIGHT", "COUNT", "2");
    writer.cmd("RPUSH", "q", "1", "2", "3");
    assertEquals("*2\r\n$1\r\nq\r\n*2\r\n$1\r\n3\r\n$1\r\n2\r\n", pending(a));
    assertEquals(":1\r\n", writer.cmd("LLEN", "q"));
  }

  @Test
  void aClosedConnectionStopsWaitingAndTakesNothing() {
    a.cmd("BLPOP", "q", "0");
    b.cmd("BLPOP", "q", "0");
    a.channel.close().syncUninterruptibly();
    assertEquals("1", clients.blockedClients());
    writer.cmd("RPUSH", "q", "x", "y");
    assertEquals("*2\r\n$1\r\nq\r\n$1\r\nx\r\n", pending(b));
    assertEquals(":1\r\n", writer.cmd("LLEN", "q"));
  }

  @Test
  void blockedInOneDatabaseIsNotServedByAnother() {
    a.cmd("SELECT", "3");
    a.cmd("BLPOP", "q", "0");
    writer.cmd("RPUSH", "q", "db0");
    assertEquals("", pending(a));
    writer.cmd("SELECT", "3");
    writer.cmd("RPUSH", "q", "db3");
    assertEquals("*2\r\n$1\r\nq\r\n$3\r\ndb3\r\n", pending(a));
  }
}
