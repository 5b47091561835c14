package dev.larder.cluster;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How a clustered cache joins its cluster and spreads its entries. Immutable and thread-safe; built
 * by {@link #builder()}.
 *
 * @param stack a JGroups XML stack: a resource name (see {@link Stacks}) or a file path
 * @param clusterName the JGroups cluster name; members with the same name and stack form one
 *     cluster
 * @param nodeName this member's logical name, shown in exceptions and logs; null lets JGroups pick
 *     one
 * @param mode replicated, distributed or invalidation
 * @param owners copies of each entry in {@link ClusterMode#DISTRIBUTED} mode (primary included)
 * @param replication when writes return
 * @param timeout how long a synchronous operation waits for the members it needs
 * @param segments the fixed number of hash segments the key space is cut into
 * @param initialClusterSize how many members (this one included) a new member waits to see in its
 *     view before its cache is handed out; 1 does not wait
 * @param initialClusterTimeout how long a new member waits for {@code initialClusterSize}
 * @param partitionHandling what a member cut off from the majority of the cluster does
 * @param minorityReads whether a member refusing writes under {@link PartitionHandling#QUORUM}
 *     still serves reads (from what its side holds, possibly stale)
 * @param partitioner maps encoded keys to segments; null for Larder's hash of the key's bytes
 * @param attributes what this member tells the others about itself (for example the address its
 *     clients use), read with {@link ClusteredCache#memberAttributes}; never null
 */
public record ClusterConfig(
    String stack,
    String clusterName,
    String nodeName,
    ClusterMode mode,
    int owners,
    Replication replication,
    Duration timeout,
    int segments,
    int initialClusterSize,
    Duration initialClusterTimeout,
    PartitionHandling partitionHandling,
    boolean minorityReads,
    KeyPartitioner partitioner,
    Map<String, String> attributes) {

  /** Validates the settings; see {@link Builder} for the rules. */
  public ClusterConfig {
    Objects.requireNonNull(stack, "stack");
    Objects.requireNonNull(clusterName, "clusterName");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(replication, "replication");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(initialClusterTimeout, "initialClusterTimeout");
    Objects.requireNonNull(partitionHandling, "partitionHandling");
    attributes = Map.copyOf(attributes);
    if (clusterName.isBlank()) {
      throw new IllegalArgumentException("clusterName is blank");
    }
    if (owners < 1) {
      throw new IllegalArgumentException("owners must be >= 1, was " + owners);
    }
    if (segments < 1 || segments > 4096) {
      throw new IllegalArgumentException("segments must be in [1, 4096], was " + segments);
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    if (initialClusterSize < 1) {
      throw new IllegalArgumentException(
          "initialClusterSize must be >= 1, was " + initialClusterSize);
    }
    if (initialClusterTimeout.isNegative() || initialClusterTimeout.isZero()) {
      throw new IllegalArgumentException(
          "initialClusterTimeout must be positive, was " + initialClusterTimeout);
    }
  }

  /** Returns a builder with the defaults listed on each of its setters. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link ClusterConfig}; not thread-safe. */
  public static final class Builder {
    private String stack = Stacks.LOOPBACK;
    private String clusterName = "larder";
    private String nodeName;
    private ClusterMode mode = ClusterMode.REPLICATED;
    private int owners = 2;
    private Replication replication = Replication.SYNC;
    private Duration timeout = Duration.ofSeconds(10);
    private int segments = 256;
    private int initialClusterSize = 1;
    private Duration initialClusterTimeout = Duration.ofSeconds(60);
    private PartitionHandling partitionHandling;
    private boolean minorityReads = true;
    private KeyPartitioner partitioner;
    private final Map<String, String> attributes = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Returns this builder.
     *
     * @param stack a JGroups XML stack, a resource or a file (default {@link Stacks#LOOPBACK})
     */
    public Builder stack(String stack) {
      this.stack = stack;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param name the cluster name (default {@code "larder"})
     */
    public Builder clusterName(String name) {
      this.clusterName = name;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param name this member's logical name (default: JGroups picks one)
     */
    public Builder nodeName(String name) {
      this.nodeName = name;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param mode the mode (default {@link ClusterMode#REPLICATED})
     */
    public Builder mode(ClusterMode mode) {
      this.mode = mode;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param owners copies of each entry in distributed mode, at least 1 (default 2)
     */
    public Builder owners(int owners) {
      this.owners = owners;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param replication SYNC or ASYNC (default SYNC)
     */
    public Builder replication(Replication replication) {
      this.replication = replication;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param timeout how long a synchronous operation waits (default 10 s)
     */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param segments hash segments, in [1, 4096] (default 256); every member must use the same
     */
    public Builder segments(int segments) {
      this.segments = segments;
      return this;
    }

    /**
     * How many members a new member waits for before its cache is handed out (default 1: no wait).
     * Why: a member that starts while the cluster is up, but does not find it in time (JGroups'
     * discovery and join time out on a loaded host), founds a cluster of its own. If it took writes
     * there, they would be lost when the partitions merge, because the larger side wins (see
     * docs/design/cluster.md). With the cluster's usual size here, such a member waits, holding
     * nothing and taking no writes, until the merge brings it in. Set it to the number of members a
     * restarted member expects to find; members of a cluster that starts from nothing must then
     * start together.
     *
     * @param members at least 1
     * @return this builder
     */
    public Builder initialClusterSize(int members) {
      this.initialClusterSize = members;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param timeout how long a new member waits for {@link #initialClusterSize} members before its
     *     build fails with a {@link ClusterException} (default 60 s)
     */
    public Builder initialClusterTimeout(Duration timeout) {
      this.initialClusterTimeout = timeout;
      return this;
    }

    /**
     * What a member does when it sees less than a majority of the cluster (see {@link
     * PartitionHandling}). Default: {@link PartitionHandling#QUORUM} for {@link Replication#SYNC}
     * caches, {@link PartitionHandling#ALLOW_ALL} for {@link Replication#ASYNC} ones. Every member
     * must use the same (checked at join). Under QUORUM, give members stable names ({@link
     * #nodeName}): the stable members are counted by name, so a member restarted under a new name
     * counts as another member.
     *
     * @param handling QUORUM or ALLOW_ALL
     * @return this builder
     */
    public Builder partitionHandling(PartitionHandling handling) {
      this.partitionHandling = Objects.requireNonNull(handling, "handling");
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param allowed whether a member that refuses writes under {@link PartitionHandling#QUORUM}
     *     still serves reads, from what its side holds (default true; such reads may miss writes
     *     acknowledged on the majority side since the partition began); false refuses them with
     *     {@link ClusterDegradedException} too
     */
    public Builder minorityReads(boolean allowed) {
      this.minorityReads = allowed;
      return this;
    }

    /**
     * Returns this builder.
     *
     * @param partitioner maps encoded keys to segments (default: a hash of the key's bytes); every
     *     member must use the same
     */
    public Builder partitioner(KeyPartitioner partitioner) {
      this.partitioner = Objects.requireNonNull(partitioner, "partitioner");
      return this;
    }

    /**
     * Something this member tells the other members about itself when it joins (carried in its
     * JGroups address), such as the address its own clients connect to. Fixed for the member's
     * life; keep it small (it travels in every view).
     *
     * @param key the attribute's name
     * @param value its value
     * @return this builder
     */
    public Builder attribute(String key, String value) {
      attributes.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** Returns the configuration. */
    public ClusterConfig build() {
      PartitionHandling handling =
          partitionHandling != null
              ? partitionHandling
              : replication == Replication.SYNC
                  ? PartitionHandling.QUORUM
                  : PartitionHandling.ALLOW_ALL;
      return new ClusterConfig(
          stack,
          clusterName,
          nodeName,
          mode,
          owners,
          replication,
          timeout,
          segments,
          initialClusterSize,
          initialClusterTimeout,
          handling,
          minorityReads,
          partitioner,
          attributes);
    }
  }
}
