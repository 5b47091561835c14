package dev.larder.server.internal.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How members find each other: the generated TCP and TCPPING stack binds cluster-bind and
 * cluster-port and looks for the listed peers (or, without peers, for ports 7800 to 7809 of its own
 * address); a stack file of one's own is used as given, and a missing one is refused.
 */
class ClusterStackTest {

  private static ServerConfig config(String... settings) {
    Map<String, String> m = new java.util.HashMap<>(Map.of("cluster", "shop"));
    for (int i = 0; i < settings.length; i += 2) {
      m.put(settings[i], settings[i + 1]);
    }
    return ServerConfig.of(m);
  }

  @Test
  void peersOnThreeMachines() {
    String xml =
        ClusterStack.xml(
            config(
                "cluster-bind",
                "10.0.0.2",
                "cluster-port",
                "7800",
                "peers",
                "10.0.0.1[7800],10.0.0.2[7800],10.0.0.3[7800]"));
    assertTrue(xml.contains("<TCP bind_addr=\"10.0.0.2\" bind_port=\"7800\""), xml);
    assertTrue(
        xml.contains(
            "initial_hosts=\"10.0.0.1[7800],10.0.0.2[7800],10.0.0.3[7800]\" port_range=\"0\""),
        xml);
  }

  @Test
  void withoutPeersOneMachinesPorts() {
    String xml = ClusterStack.xml(config("cluster-port", "7801"));
    assertTrue(xml.contains("<TCP bind_addr=\"127.0.0.1\" bind_port=\"7801\""), xml);
    assertTrue(xml.contains("initial_hosts=\"127.0.0.1[7800]\" port_range=\"10\""), xml);
    String elsewhere = ClusterStack.xml(config("cluster-port", "9000"));
    assertTrue(elsewhere.contains("initial_hosts=\"127.0.0.1[7800],127.0.0.1[9000]\""), elsewhere);
  }

  @Test
  void theTransactionsChannelListensAndLooksAPortOffsetHigher() {
    String xml =
        ClusterStack.xml(
            config("cluster-port", "7801", "peers", "10.0.0.1[7800],10.0.0.2[7801]"), 1000);
    assertTrue(xml.contains("<TCP bind_addr=\"127.0.0.1\" bind_port=\"8801\""), xml);
    assertTrue(xml.contains("initial_hosts=\"10.0.0.1[8800],10.0.0.2[8801]\""), xml);
    String alone = ClusterStack.xml(config("cluster-port", "7801"), 1000);
    assertTrue(alone.contains("initial_hosts=\"127.0.0.1[8800]\" port_range=\"10\""), alone);
  }

  @Test
  void aStackFileIsUsedAsGiven(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("stack.xml"), "<config/>");
    assertEquals(file.toString(), ClusterStack.of(config("cluster-stack", file.toString())));
    IllegalArgumentException missing =
        assertThrows(
            IllegalArgumentException.class,
            () -> ClusterStack.of(config("cluster-stack", dir.resolve("none.xml").toString())));
    assertTrue(missing.getMessage().contains("none.xml"), missing.getMessage());
    String generated = ClusterStack.of(config("peers", "127.0.0.1[7900]"));
    assertTrue(Files.readString(Path.of(generated)).contains("initial_hosts=\"127.0.0.1[7900]\""));
  }
}
