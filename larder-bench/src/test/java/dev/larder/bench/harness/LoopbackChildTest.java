package dev.larder.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LoopbackChildTest {

  @Test
  void freePortsLieBelowTheEphemeralRangeAndCanBeBound() throws IOException {
    int floor = LoopbackChild.ephemeralFloor();
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int port = LoopbackChild.freePort();
      assertTrue(port >= 1_024 && port < floor, port + " is not below " + floor);
      seen.add(port);
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        assertEquals(port, s.getLocalPort());
      }
    }
    // Chosen at random, not one fixed port handed to every server of a trial.
    assertTrue(seen.size() > 40, "only " + seen.size() + " distinct ports in 50");
  }

  @Test
  void aPortWithAnOffsetHasItsPartnerFreeAndBelowTheEphemeralRangeToo() throws IOException {
    int floor = LoopbackChild.ephemeralFloor();
    for (int i = 0; i < 20; i++) {
      int port = LoopbackChild.freePortWith(1000);
      assertTrue(port >= 1_024 && port + 1000 < floor, port + " + 1000 is not below " + floor);
      try (ServerSocket a = new ServerSocket();
          ServerSocket b = new ServerSocket()) {
        a.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        b.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port + 1000));
      }
    }
  }

  @Test
  void theEphemeralFloorIsAPlausiblePort() {
    int floor = LoopbackChild.ephemeralFloor();
    assertTrue(floor > 2_048 && floor <= 65_535, "floor " + floor);
  }
}
