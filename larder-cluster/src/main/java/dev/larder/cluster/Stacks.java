package dev.larder.cluster;

/**
 * The JGroups stacks that ship with Larder, as names for {@link
 * ClusterConfig.Builder#stack(String)}. Each is an XML file inside this module; any other JGroups
 * XML file or resource can be given instead.
 */
public final class Stacks {

  /**
   * Several JVMs on one host: TCP and TCPPING on 127.0.0.1, no multicast. The first port is the
   * system property {@code larder.cluster.port} (default 7800); nodes take the first free port of
   * the next {@code larder.cluster.port_range} (default 10).
   */
  public static final String LOOPBACK = "dev/larder/cluster/loopback.xml";

  /** A LAN: UDP multicast ({@code larder.cluster.mcast_port}, default 45700). */
  public static final String LAN = "dev/larder/cluster/lan.xml";

  /**
   * Several members inside one JVM (JGroups' SHARED_LOOPBACK): no sockets. For tests and
   * demonstrations.
   */
  public static final String IN_PROCESS = "dev/larder/cluster/in-process.xml";

  private Stacks() {}
}
