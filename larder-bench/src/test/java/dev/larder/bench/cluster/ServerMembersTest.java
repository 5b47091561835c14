package dev.larder.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A member whose port was taken by the time it bound it: at its first start it moves to fresh
 * ports, at a restart it tries its own again; any other failure is the trial's to report at once.
 */
class ServerMembersTest {
  private final IllegalStateException respTaken =
      new IllegalStateException(
          "ServerClusterNode did not start: no ready line (it exited, code 1); its standard error"
              + " ends: java.io.IOException: cannot listen on 127.0.0.1:20801: the port is in use");
  private final IllegalStateException clusterTaken =
      new IllegalStateException(
          "ServerClusterNode did not start: ... java.net.BindException: No available port to bind"
              + " to in range [20106 .. 20106]");

  @Test
  void aFirstStartMovesToFreshPortsUntilItBinds() throws Exception {
    AtomicInteger starts = new AtomicInteger();
    AtomicInteger fresh = new AtomicInteger();
    ServerMembers.start(
        true,
        () -> {
          int n = starts.incrementAndGet();
          if (n == 1) {
            throw respTaken;
          }
          if (n == 2) {
            throw clusterTaken;
          }
          return null;
        },
        fresh::incrementAndGet);
    assertEquals(3, starts.get());
    assertEquals(2, fresh.get(), "fresh ports before each start again");
  }

  @Test
  void aFirstStartGivesUpAfterItsAttempts() {
    AtomicInteger starts = new AtomicInteger();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                ServerMembers.start(
                    true,
                    () -> {
                      starts.incrementAndGet();
                      throw respTaken;
                    },
                    () -> {}));
    assertSame(respTaken, e);
    assertEquals(ServerMembers.FIRST_START_ATTEMPTS, starts.get());
  }

  @Test
  void aRestartTriesItsOwnPortsAgainWithoutMovingThem() throws Exception {
    AtomicInteger starts = new AtomicInteger();
    ServerMembers.start(
        false,
        () -> {
          if (starts.incrementAndGet() < 3) {
            throw respTaken;
          }
          return null;
        },
        () -> {
          throw new AssertionError("a restart was moved to other ports");
        });
    assertEquals(3, starts.get());
  }

  @Test
  void anyOtherFailureIsThrownAtOnce() {
    AtomicInteger starts = new AtomicInteger();
    IllegalStateException other = new IllegalStateException("the log in m0 is damaged");
    assertSame(
        other,
        assertThrows(
            IllegalStateException.class,
            () ->
                ServerMembers.start(
                    true,
                    () -> {
                      starts.incrementAndGet();
                      throw other;
                    },
                    () -> {})));
    assertEquals(1, starts.get());
  }
}
