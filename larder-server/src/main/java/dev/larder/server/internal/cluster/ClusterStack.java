package dev.larder.server.internal.cluster;

import dev.larder.server.ServerConfig;
import dev.larder.server.ServerSetting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JGroups stack a clustered server joins with: the file of {@code cluster-stack} when set,
 * otherwise TCP on {@code cluster-bind:cluster-port} with discovery by TCPPING, of {@code peers}
 * when given, else of {@code cluster-bind}'s ports 7800 to 7809 and {@code cluster-port} (several
 * members on one machine). The protocols above the transport and their timeouts are those of
 * larder-cluster's loopback stack: a killed member is noticed at once through its closed socket, a
 * hung one within about 10 s, and partitions heal within 2-5 s of the network coming back (MERGE3).
 *
 * <p>Stateless and thread-safe.
 */
public final class ClusterStack {
  /** The first cluster port members on one machine look at when no peers are given. */
  static final int DEFAULT_PORT = 7800;

  private static final Pattern PEER_PORT = Pattern.compile("\\[(\\d+)\\]");

  private ClusterStack() {}

  /**
   * Returns a resource name or file path for {@link dev.larder.cluster.ClusterConfig}'s stack.
   *
   * @param config the server's settings
   * @throws UncheckedIOException if the generated stack cannot be written to a temporary file
   */
  public static String of(ServerConfig config) {
    return of(config, 0);
  }

  /**
   * As {@link #of(ServerConfig)} for a second channel of this member (the transactional store's),
   * whose TCP ports, this member's and its peers', are {@code portOffset} above the configured
   * ones.
   *
   * @param config the server's settings
   * @param portOffset added to every cluster port; 0 for the cluster's own channel
   * @throws IllegalArgumentException if a stack file is configured and {@code portOffset} is not 0
   */
  public static String of(ServerConfig config, int portOffset) {
    String file = config.get(ServerSetting.CLUSTER_STACK);
    if (!file.isEmpty()) {
      if (!Files.isReadable(Path.of(file))) {
        throw new IllegalArgumentException("cluster-stack " + file + ": no such readable file");
      }
      if (portOffset != 0) {
        throw new IllegalArgumentException(
            "cluster-stack " + file + ": a second channel's ports cannot be derived from a file");
      }
      return file;
    }
    try {
      Path path = Files.createTempFile("larder-cluster-", ".xml");
      path.toFile().deleteOnExit();
      Files.writeString(path, xml(config, portOffset));
      return path.toString();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the cluster's JGroups stack: " + e, e);
    }
  }

  /**
   * Returns the TCP and TCPPING stack's XML.
   *
   * @param config the server's settings
   */
  static String xml(ServerConfig config) {
    return xml(config, 0);
  }

  /**
   * Returns the TCP and TCPPING stack's XML with every port {@code portOffset} higher.
   *
   * @param config the server's settings
   * @param portOffset added to this member's and the peers' ports
   */
  static String xml(ServerConfig config, int portOffset) {
    String bind = config.get(ServerSetting.CLUSTER_BIND);
    int port = config.clusterPort() + portOffset;
    String peers = shifted(config.get(ServerSetting.PEERS), portOffset);
    String hosts = peers;
    int range = 0;
    if (peers.isEmpty()) {
      // one machine: the members' ports are 7800..7809 (and this member's own, if elsewhere)
      int first = DEFAULT_PORT + portOffset;
      hosts =
          bind
              + "["
              + first
              + "]"
              + (port >= first && port < first + 10 ? "" : "," + bind + "[" + port + "]");
      range = 10;
    }
    return """
        <config xmlns="urn:org:jgroups"
                xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                xsi:schemaLocation="urn:org:jgroups http://www.jgroups.org/schema/jgroups.xsd">
          <TCP bind_addr="%s" bind_port="%d" port_range="0" tcp_nodelay="true"
               diag.enabled="false" thread_pool.min_threads="0"
               thread_pool.max_threads="200" thread_pool.keep_alive_time="30s"/>
          <TCPPING async_discovery="true" initial_hosts="%s" port_range="%d"/>
          <MERGE3 min_interval="2s" max_interval="5s"/>
          <FD_SOCK2 offset="200"/>
          <FD_ALL3 timeout="10s" interval="2s"/>
          <VERIFY_SUSPECT2 timeout="500ms"/>
          <BARRIER/>
          <pbcast.NAKACK2 use_mcast_xmit="false" xmit_interval="200ms"/>
          <UNICAST3 xmit_interval="200ms"/>
          <pbcast.STABLE desired_avg_gossip="5s" max_bytes="4M"/>
          <pbcast.GMS print_local_addr="false" join_timeout="2s" leave_timeout="1s"
                      view_ack_collection_timeout="1s"/>
          <MFC_NB max_credits="4M" min_threshold="0.4"/>
          <UFC_NB max_credits="4M" min_threshold="0.4"/>
          <FRAG4 frag_size="60K"/>
        </config>
        """
        .formatted(bind, port, hosts, range);
  }

  /** Returns {@code peers} (HOST[PORT],...) with every port {@code offset} higher. */
  static String shifted(String peers, int offset) {
    if (offset == 0) {
      return peers;
    }
    Matcher m = PEER_PORT.matcher(peers);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, "[" + (Integer.parseInt(m.group(1)) + offset) + "]");
    }
    m.appendTail(out);
    return out.toString();
  }
}
