package dev.larder.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.BindException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A start whose port was taken moves to fresh ports a bounded number of times; any other failure is
 * thrown at once.
 */
class FreshPortStartTest {
  private final IOException redisTaken =
      new IOException(
          "redis-server did not answer PING on port 20801; its output ends: Warning: Could not"
              + " create server TCP listening socket 127.0.0.1:20801: bind: Address already in use");

  @Test
  void aTakenPortIsFollowedByAnotherAttemptUntilOneStarts() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    String started =
        FreshPortStart.start(
            "test server",
            () -> {
              if (attempts.incrementAndGet() < 3) {
                throw redisTaken;
              }
              return "started";
            });
    assertEquals("started", started);
    assertEquals(3, attempts.get());
  }

  @Test
  void theAttemptsAreBounded() {
    AtomicInteger attempts = new AtomicInteger();
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                FreshPortStart.start(
                    "test server",
                    () -> {
                      attempts.incrementAndGet();
                      throw redisTaken;
                    }));
    assertSame(redisTaken, e);
    assertEquals(FreshPortStart.ATTEMPTS, attempts.get());
  }

  @Test
  void anyOtherFailureIsThrownAtOnce() {
    AtomicInteger attempts = new AtomicInteger();
    IOException other = new IOException("redis-server did not answer PING on port 20801");
    assertSame(
        other,
        assertThrows(
            IOException.class,
            () ->
                FreshPortStart.start(
                    "test server",
                    () -> {
                      attempts.incrementAndGet();
                      throw other;
                    })));
    assertEquals(1, attempts.get());
  }

  @Test
  void aTakenPortIsRecognisedInEachServersWordsAndInCauses() {
    assertTrue(FreshPortStart.portTaken(redisTaken));
    assertTrue(
        FreshPortStart.portTaken(
            new IllegalStateException(
                "ServerClusterNode did not start: ... cannot listen on 127.0.0.1:20801: the port"
                    + " is in use")));
    assertTrue(
        FreshPortStart.portTaken(
            new IllegalStateException("x", new BindException("No available port to bind to"))));
    assertTrue(
        FreshPortStart.portTaken(
            new IOException(
                "memcached did not answer version on port 20801; its output ends: failed to"
                    + " listen on TCP port 20801: Address already in use")));
    assertFalse(FreshPortStart.portTaken(new IOException("connection refused")));
    assertFalse(FreshPortStart.portTaken(new IOException((String) null)));
  }
}
