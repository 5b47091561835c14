package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import dev.larder.server.internal.persist.LoadProgress;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RESP while the server loads, in Redis 7.0's order: an unknown command and a wrong arity are named
 * first, PING (subscribed or not), data commands and WATCH get LOADING, connection commands run,
 * and a refusal inside MULTI aborts the EXEC.
 */
class RespLoadingTest {
  private static final String LOADING = "-LOADING Redis is loading the dataset in memory\r\n";

  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void refusalsAndWhatRuns() {
    server.state.loading(LoadProgress.of(Path.of("no-such-directory"), TestServer.START));
    assertTrue(c.cmd("NOSUCH", "x").startsWith("-ERR unknown command 'NOSUCH'"));
    assertEquals("-ERR wrong number of arguments for 'get' command\r\n", c.cmd("GET"));
    assertEquals(LOADING, c.cmd("PING"));
    assertEquals(LOADING, c.cmd("SET", "k", "v"));
    assertEquals(LOADING, c.cmd("CONFIG", "SET", "maxmemory", "1000000"));
    assertEquals(LOADING, c.cmd("WATCH", "k"));
    assertEquals("+OK\r\n", c.cmd("UNWATCH"));
    assertEquals("$2\r\nhi\r\n", c.cmd("ECHO", "hi"));
    assertEquals("+OK\r\n", c.cmd("SELECT", "1"));
    assertTrue(c.cmd("INFO", "persistence").contains("loading:1\r\n"));
    assertEquals("+OK\r\n", c.cmd("MULTI"));
    assertEquals("+QUEUED\r\n", c.cmd("ECHO", "a"));
    assertEquals(LOADING, c.cmd("DBSIZE"));
    assertEquals("-EXECABORT Transaction discarded because of previous errors.\r\n", c.cmd("EXEC"));
    assertTrue(c.cmd("SUBSCRIBE", "ch").startsWith("*3\r\n"));
    assertEquals(LOADING, c.cmd("PING"));
    assertTrue(c.cmd("UNSUBSCRIBE").startsWith("*3\r\n"));

    server.state.loaded();
    assertEquals("+PONG\r\n", c.cmd("PING"));
    assertEquals("+OK\r\n", c.cmd("SET", "k", "v"));
    assertTrue(c.cmd("INFO", "persistence").contains("loading:0\r\n"));
  }
}
