package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespClients.clientId;
import static dev.larder.server.internal.resp.RespClients.keyspaceEvents;
import static dev.larder.server.internal.resp.RespClients.pending;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * SORT's STORE as a write (keyspace events, blocked clients, transactions, tracking) and CLIENT
 * UNBLOCK (which client it wakes, with which reply, inside MULTI), through the real decoder and
 * handler, several connections on one server. Replies and errors are compared with redis-server by
 * {@code RedisDifferentialTest}.
 */
class RespSortAndUnblockTest {
  @AutoClose
  private final RespClients clients = new RespClients(Map.of("notify-keyspace-events", "KEA"));

  private final TestServer.Connection a = clients.a;
  private final TestServer.Connection b = clients.b;
  private final TestServer.Connection writer = clients.writer;

  @Test
  void storePublishesSortstoreOrDel() {
    writer.cmd("RPUSH", "src", "3", "1", "2");
    a.cmd("PSUBSCRIBE", "__key*__:*");
    assertEquals(":3\r\n", writer.cmd("SORT", "src", "STORE", "dest"));
    assertEquals(":0\r\n", writer.cmd("SORT", "missing", "STORE", "dest"));
    assertEquals(":0\r\n", writer.cmd("SORT", "missing", "STORE", "dest"), "nothing to delete");
    assertEquals("*0\r\n", writer.cmd("SORT", "src", "LIMIT", "0", "0"));
    assertEquals(
        List.of(
            "__keyspace@0__:dest sortstore",
            "__keyevent@0__:sortstore dest",
            "__keyspace@0__:dest del",
            "__keyevent@0__:del dest"),
        keyspaceEvents(pending(a)));
  }

  @Test
  void storeServesAClientBlockedOnTheDestination() {
    writer.cmd("RPUSH", "src", "3", "1", "2");
    assertEquals("", a.cmd("BLPOP", "dest", "0"));
    assertEquals(":3\r\n", writer.cmd("SORT", "src", "DESC", "STORE", "dest"));
    assertEquals("*2\r\n$4\r\ndest\r\n$1\r\n3\r\n", pending(a));
    assertEquals("*2\r\n$1\r\n2\r\n$1\r\n1\r\n", writer.cmd("LRANGE", "dest", "0", "-1"));
  }

  @Test
  void storeInvalidatesTrackedDestination() {
    a.cmd("HELLO", "3");
    a.cmd("CLIENT", "TRACKING", "ON");
    writer.cmd("RPUSH", "dest", "old");
    a.cmd("LRANGE", "dest", "0", "-1");
    writer.cmd("RPUSH", "src", "b", "a");
    writer.cmd("SORT", "src", "ALPHA", "STORE", "dest");
    assertEquals(">2\r\n$10\r\ninvalidate\r\n*1\r\n$4\r\ndest\r\n", pending(a));
  }

  @Test
  void storeInsideMultiSeesTheTransactionsWrites() {
    writer.cmd("MULTI");
    writer.cmd("RPUSH", "src", "2", "1");
    writer.cmd("SET", "w_1", "9");
    writer.cmd("SORT", "src", "BY", "w_*", "STORE", "dest");
    writer.cmd("LRANGE", "dest", "0", "-1");
    assertEquals("*4\r\n:2\r\n+OK\r\n:2\r\n*2\r\n$1\r\n2\r\n$1\r\n1\r\n", writer.cmd("EXEC"));
  }

  @Test
  void sortRoIsAReadAndRefusesStore() {
    writer.cmd("RPUSH", "src", "2", "1");
    assertEquals("*2\r\n$1\r\n1\r\n$1\r\n2\r\n", writer.cmd("SORT_RO", "src"));
    assertEquals("-ERR syntax error\r\n", writer.cmd("SORT_RO", "src", "STORE", "d"));
    assertEquals(":0\r\n", writer.cmd("EXISTS", "d"));
  }

  @Test
  void unblockTimeoutAnswersAsATimeout() {
    String id = clientId(a);
    assertEquals("", a.cmd("BLPOP", "q", "0"));
    assertTrue(writer.cmd("CLIENT", "LIST").contains("id=" + id + " "), "listed");
    assertTrue(clientLine(id).contains(" flags=b "), clientLine(id));
    assertEquals(":1\r\n", writer.cmd("CLIENT", "UNBLOCK", id));
    assertEquals("*-1\r\n", pending(a));
    assertEquals("0", clients.blockedClients());
    assertTrue(clientLine(id).contains(" flags=N "), clientLine(id));
    assertEquals(":0\r\n", writer.cmd("CLIENT", "UNBLOCK", id), "no longer blocked");
    assertEquals("+PONG\r\n", a.cmd("PING"));
  }

  /** CLIENT LIST ID's one line for the client. */
  private String clientLine(String id) {
    String reply = writer.cmd("CLIENT", "LIST", "ID", id, "999999");
    String[] lines = reply.substring(reply.indexOf("\r\n") + 2, reply.length() - 2).split("\n", -1);
    assertEquals(2, lines.length, reply);
    assertEquals("", lines[1], reply);
    assertTrue(lines[0].startsWith("id=" + id + " "), reply);
    return lines[0];
  }

  @Test
  void clientListIdRefusesWhatIsNoId() {
    assertEquals("-ERR Invalid client ID\r\n", writer.cmd("CLIENT", "LIST", "ID", "x"));
  }

  @Test
  void unblockErrorAnswersTheUnblockedError() {
    String id = clientId(a);
    a.cmd("BZPOPMIN", "z", "0");
    assertEquals(":1\r\n", writer.cmd("CLIENT", "UNBLOCK", id, "error"));
    assertEquals("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n", pending(a));
    writer.cmd("ZADD", "z", "1", "m");
    assertEquals("", pending(a), "a withdrawn waiter is not served");
    assertEquals(":1\r\n", writer.cmd("ZCARD", "z"));
  }

  @Test
  void unblockWakesOnlyThatClientAndTheOtherKeepsItsPlace() {
    String first = clientId(a);
    String second = clientId(b);
    a.cmd("BLPOP", "q", "0");
    b.cmd("BLPOP", "q", "0");
    assertEquals(":1\r\n", writer.cmd("CLIENT", "UNBLOCK", second, "TIMEOUT"));
    assertEquals("*-1\r\n", pending(b));
    assertEquals("", pending(a));
    assertEquals("1", clients.blockedClients());
    writer.cmd("RPUSH", "q", "x", "y");
    assertEquals("*2\r\n$1\r\nq\r\n$1\r\nx\r\n", pending(a));
    assertEquals("", pending(b));
    assertEquals(":1\r\n", writer.cmd("LLEN", "q"));
    assertEquals(":0\r\n", writer.cmd("CLIENT", "UNBLOCK", first));
  }

  @Test
  void unblockRunsTheRequestsPipelinedBehindTheBlockedOne() {
    String id = clientId(a);
    assertEquals(
        "",
        a.raw(
            TestServer.Connection.multibulk("BLMOVE", "q", "d", "LEFT", "LEFT", "0") + "PING\r\n"));
    writer.cmd("CLIENT", "UNBLOCK", id);
    assertEquals("*-1\r\n+PONG\r\n", pending(a));
  }

  @Test
  void unblockInsideMulti() {
    String id = clientId(a);
    a.cmd("BLPOP", "q", "0");
    writer.cmd("MULTI");
    writer.cmd("CLIENT", "UNBLOCK", id, "ERROR");
    writer.cmd("CLIENT", "UNBLOCK", id, "ERROR");
    assertEquals("*2\r\n:1\r\n:0\r\n", writer.cmd("EXEC"));
    assertEquals("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n", pending(a));
    assertEquals("0", clients.blockedClients());
  }

  @Test
  void aClientThatIsNotBlockedIsNotUnblocked() {
    String id = clientId(a);
    assertEquals(":0\r\n", writer.cmd("CLIENT", "UNBLOCK", id));
    assertEquals(":0\r\n", writer.cmd("CLIENT", "UNBLOCK", "123456789"));
    assertEquals("+PONG\r\n", a.cmd("PING"));
  }
}
