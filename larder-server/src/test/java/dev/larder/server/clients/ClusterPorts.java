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

  /**
   * Returns a cluster port free now for a member with {@code cluster-transactions on}: with the
   * transactional channel's port 1000 above it free too, and the ports both JGroups stacks bind
   * beside them.
   */
  public static int transactionalCluster() throws IOException {
    return LoopbackCluster.freeClusterPort(true);
  }

  /**
   * Returns whether a server's start failed because one of its ports was taken by the time it bound
   * it (found free a moment before, then taken by a socket outside the test): the test should start
   * it again on fresh ports, as {@link LoopbackCluster} does.
   */
  public static boolean taken(Throwable startFailure) {
    return LoopbackCluster.causedByBind(startFailure);
  }
}
