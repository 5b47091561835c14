package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespClients.pending;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * BZPOPMIN, BZPOPMAX and BZMPOP through the real decoder and handler, several connections on one
 * server: who is served, in what order, with what reply; transactions; keys deleted, renamed or
 * written with another type while waited on; lists and sorted sets waited on the same key; closing.
 * Timeouts against a real clock are {@code SetAndSortedSetClientsTest}'s.
 */
class RespBlockingZSetCommandsTest {
  private static final String WRONGTYPE =
      "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

  @AutoClose private final RespClients clients = new RespClients();
  private final TestServer.Connection a = clients.a;
  private final TestServer.Connection b = clients.b;
  private final TestServer.Connection writer = clients.writer;

  @Test
  void answersAtOnceWhenASetHoldsMembers() {
    writer.cmd("ZADD", "z", "1", "a", "2", "b", "3", "c");
    assertEquals("*3\r\n$1\r\nz\r\n$1\r\na\r\n$1\r\n1\r\n", a.cmd("BZPOPMIN", "none", "z", "0"));
    assertEquals("*3\r\n$1\r\nz\r\n$1\r\nc\r\n$1\r\n3\r\n", a.cmd("BZPOPMAX", "z", "0"));
    assertEquals(
        "*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n",
        a.cmd("BZMPOP", "0", "2", "none", "z", "MIN", "COUNT", "5"));
    assertEquals(":0\r\n", writer.cmd("EXISTS", "z"));
  }

  @Test
  void blockingPopsAnswerFromAnOpenChunkedSet() {
    // 400 members of about 40 bytes: past the packed form's 8 KiB, so chunked
    String[] add = new String[2 + 2 * 400];
    add[0] = "ZADD";
    add[1] = "big";
    for (int i = 0; i < 400; i++) {
      add[2 + 2 * i] = Integer.toString(i);
      add[3 + 2 * i] = "member:" + i + ":" + "p".repeat(24);
    }
    assertEquals(":400\r\n", writer.cmd(add));
    // changed one member at a time until the tier holds it open (bounded: a hot counter's window
    // may end on a slow machine and start again)
    int more = 0;
    while (more < 10_000 && clients.server.keyspace.openCollectionStats()[0] == 0) {
      writer.cmd("ZADD", "big", Integer.toString(1_000 + more), "more:" + more++);
    }
    assertEquals(1, clients.server.keyspace.openCollectionStats()[0], "open");
    String low = "member:0:" + "p".repeat(24);
    assertEquals(
        "*3\r\n$3\r\nbig\r\n$" + low.length() + "\r\n" + low + "\r\n$1\r\n0\r\n",
        a.cmd("BZPOPMIN", "none", "big", "0"));
    String high = "more:" + (more - 1);
    String score = Integer.toString(1_000 + more - 1);
    assertEquals(
        "*3\r\n$3\r\nbig\r\n$"
            + high.length()
            + "\r\n"
            + high
            + "\r\n$"
            + score.length()
            + "\r\n"
            + score
            + "\r\n",
        b.cmd("BZPOPMAX", "big", "0"));
    assertEquals(":" + (400 + more - 2) + "\r\n", writer.cmd("ZCARD", "big"));
    assertEquals("0", clients.blockedClients());
    clients.server.keyspace.closeOpenCollections();
    assertEquals(":" + (400 + more - 2) + "\r\n", writer.cmd("ZCARD", "big"), "written back");
  }

  @Test
  void firstBlockedIsFirstServed() {
    assertEquals("", a.cmd("BZPOPMIN", "z", "0"));
    assertEquals("", b.cmd("BZPOPMAX", "z", "0"));
    assertEquals("2", clients.blockedClients());
    assertEquals(":3\r\n", writer.cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"));
    assertEquals("*3\r\n$1\r\nz\r\n$1\r\na\r\n$1\r\n1\r\n", pending(a));
    assertEquals("*3\r\n$1\r\nz\r\n$1\r\nc\r\n$1\r\n3\r\n", pending(b));
    assertEquals(":1\r\n", writer.cmd("ZCARD", "z"));
    assertEquals("0", clients.blockedClients());
  }

  @Test
  void oneMemberServesOneClientAndTheOtherWaits() {
    a.cmd("BZPOPMIN", "z", "0");
    b.cmd("BZPOPMIN", "z", "0");
    writer.cmd("ZADD", "z", "5", "x");
    assertEquals("*3\r\n$1\r\nz\r\n$1\r\nx\r\n$1\r\n5\r\n", pending(a));
    assertEquals("", pending(b));
    assertEquals("1", clients.blockedClients());
    writer.cmd("ZADD", "z", "6", "y");
    assertEquals("*3\r\n$1\r\nz\r\n$1\r\ny\r\n$1\r\n6\r\n", pending(b));
  }

  @Test
  void waitsOnSeveralKeysAndIsServedByTheOneWritten() {
    a.cmd("BZPOPMAX", "z1", "z2", "z1", "0");
    writer.cmd("ZADD", "z2", "1.5", "m");
    assertEquals("*3\r\n$2\r\nz2\r\n$1\r\nm\r\n$3\r\n1.5\r\n", pending(a));
    assertEquals("0", clients.blockedClients());
  }

  @Test
  void resp3RepliesTheScoreAsADouble() {
    a.cmd("HELLO", "3");
    a.cmd("BZPOPMIN", "z", "0");
    writer.cmd("ZADD", "z", "2.5", "m");
    assertEquals("*3\r\n$1\r\nz\r\n$1\r\nm\r\n,2.5\r\n", pending(a));
    a.cmd("BZMPOP", "0", "1", "z", "MAX");
    writer.cmd("ZADD", "z", "7", "n");
    assertEquals("*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nn\r\n,7\r\n", pending(a));
  }

  @Test
  void blockedMultiPopTakesUpToItsCountFromTheKeyWritten() {
    a.cmd("BZMPOP", "0", "2", "x", "z", "MAX", "COUNT", "2");
    writer.cmd("ZADD", "z", "1", "a", "2", "b", "3", "c");
    assertEquals(
        "*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n",
        pending(a));
    assertEquals(":1\r\n", writer.cmd("ZCARD", "z"));
  }

  @Test
  void insideMultiNothingBlocks() {
    a.cmd("MULTI");
    a.cmd("BZPOPMIN", "z", "0");
    a.cmd("BZPOPMAX", "z", "0");
    a.cmd("BZMPOP", "0", "1", "z", "MIN");
    assertEquals("*3\r\n*-1\r\n*-1\r\n*-1\r\n", a.cmd("EXEC"));
    assertEquals("0", clients.blockedClients());
  }

  @Test
  void addedAndDeletedInOneTransactionServesNobody() {
    a.cmd("BZPOPMIN", "z", "0");
    writer.cmd("MULTI");
    writer.cmd("ZADD", "z", "1", "a");
    writer.cmd("DEL", "z");
    writer.cmd("SET", "z", "text");
    writer.cmd("EXEC");
    assertEquals("", pending(a));
    assertEquals("1", clients.blockedClients());
    writer.cmd("DEL", "z");
    writer.cmd("MULTI");
    writer.cmd("ZADD", "z", "1", "a", "2", "b");
    writer.cmd("ZREM", "z", "a");
    assertEquals("*2\r\n:2\r\n:1\r\n", writer.cmd("EXEC"));
    assertEquals("*3\r\n$1\r\nz\r\n$1\r\nb\r\n$1\r\n2\r\n", pending(a));
  }

  @Test
  void aKeyWrittenWithAnotherTypeLeavesItWaiting() {
    a.cmd("BZPOPMIN", "z", "0");
    writer.cmd("SET", "z", "text");
    writer.cmd("SADD", "s", "m");
    writer.cmd("RENAME", "s", "z");
    assertEquals("", pending(a));
    writer.cmd("DEL", "z");
    writer.cmd("ZADD", "z", "1", "m");
    assertEquals("*3\r\n$1\r\nz\r\n$1\r\nm\r\n$1\r\n1\r\n", pending(a));
  }

  @Test
  void aSortedSetRenamedIntoPlaceServesIt() {
    a.cmd("BZPOPMAX", "z", "0");
    writer.cmd("ZADD", "other", "4", "m");
    writer.cmd("RENAME", "other", "z");
    assertEquals("*3\r\n$1\r\nz\r\n$1\r\nm\r\n$1\r\n4\r\n", pending(a));
    assertEquals(":0\r\n", writer.cmd("EXISTS", "z"));
  }

  @Test
  void listAndSortedSetWaitersOnOneKeyAreEachServedByTheirType() {
    a.cmd("BLPOP", "k", "0");
    b.cmd("BZPOPMIN", "k", "0");
    writer.cmd("ZADD", "k", "1", "m");
    assertEquals("", pending(a));
    assertEquals("*3\r\n$1\r\nk\r\n$1\r\nm\r\n$1\r\n1\r\n", pending(b));
    writer.cmd("RPUSH", "k", "e");
    assertEquals("*2\r\n$1\r\nk\r\n$1\r\ne\r\n", pending(a));
  }

  @Test
  void theFirstAttemptAnswersWrongTypeForAKeyOfAnotherType() {
    writer.cmd("SET", "s", "text");
    assertEquals(WRONGTYPE, a.cmd("BZPOPMIN", "s", "0"));
    assertEquals(WRONGTYPE, a.cmd("BZMPOP", "0", "2", "s", "z", "MIN"));
    writer.cmd("ZADD", "z", "1", "m");
    // A non-empty sorted set before the key of another type is taken from.
    assertEquals("*3\r\n$1\r\nz\r\n$1\r\nm\r\n$1\r\n1\r\n", a.cmd("BZPOPMIN", "z", "s", "0"));
    assertEquals("0", clients.blockedClients());
  }

  @Test
  void badArgumentsAreRefusedBeforeBlocking() {
    assertEquals("-ERR timeout is negative\r\n", a.cmd("BZPOPMIN", "z", "-1"));
    assertEquals("-ERR timeout is not a float or out of range\r\n", a.cmd("BZPOPMAX", "z", "x"));
    assertEquals(
        "-ERR numkeys should be greater than 0\r\n", a.cmd("BZMPOP", "0", "0", "z", "MIN"));
    assertEquals("-ERR syntax error\r\n", a.cmd("BZMPOP", "0", "1", "z", "LEFT"));
    assertEquals(
        "-ERR count should be greater than 0\r\n",
        a.cmd("BZMPOP", "0", "1", "z", "MIN", "COUNT", "0"));
    assertEquals("0", clients.blockedClients());
  }

  @Test
  void aClosedConnectionStopsWaitingAndTakesNothing() {
    a.cmd("BZPOPMIN", "z", "0");
    b.cmd("BZPOPMIN", "z", "0");
    a.channel.close().syncUninterruptibly();
    assertEquals("1", clients.blockedClients());
    writer.cmd("ZADD", "z", "1", "x", "2", "y");
    assertEquals("*3\r\n$1\r\nz\r\n$1\r\nx\r\n$1\r\n1\r\n", pending(b));
    assertEquals(":1\r\n", writer.cmd("ZCARD", "z"));
  }

  @Test
  void blockedInOneDatabaseIsNotServedByAnother() {
    a.cmd("SELECT", "3");
    a.cmd("BZPOPMIN", "z", "0");
    writer.cmd("ZADD", "z", "1", "db0");
    assertEquals("", pending(a));
    writer.cmd("SELECT", "3");
    writer.cmd("ZADD", "z", "1", "db3");
    assertEquals("*3\r\n$1\r\nz\r\n$3\r\ndb3\r\n$1\r\n1\r\n", pending(a));
  }
}
