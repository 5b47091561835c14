package dev.larder.server.clients;

import java.io.IOException;

/**
 * Ports for a clustered server a test starts on its own (not through {@link LoopbackCluster}),
 * handed out by the same scheme, so that they cannot collide with the ports of other tests' members
 * in this JVM or in the other test JVMs beside it.
 */
public final class ClusterPorts {
  private ClusterPorts() {}

  /** Returns a RESP port free now and handed out to no one else. */
  public static int resp() throws IOException {
    return LoopbackCluster.freePort();
  }

  /** Returns a cluster port free now, with the ports its JGroups stack binds beside it. */
  public static int cluster() throws IOException {
    return LoopbackCluster.freeClusterPort(false);
  }
}
