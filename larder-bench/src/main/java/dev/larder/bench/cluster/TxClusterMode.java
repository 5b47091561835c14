package dev.larder.bench.cluster;

import dev.larder.cluster.ClusterMode;
import java.util.Locale;

/**
 * The cluster modes {@code ./larder bench cluster-tx} runs clustered transactions in: {@code
 * replicated} (every member holds every key) and {@code distributed} (each key on {@link #owners}
 * members).
 */
final class TxClusterMode {

  private TxClusterMode() {}

  /**
   * Returns the mode named {@code replicated} or {@code distributed}.
   *
   * @throws IllegalArgumentException for another name
   */
  static ClusterMode parse(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "replicated" -> ClusterMode.REPLICATED;
      case "distributed" -> ClusterMode.DISTRIBUTED;
      default -> throw new IllegalArgumentException("unknown cluster-tx mode " + name);
    };
  }

  /**
   * Returns the owners of each key in distributed mode: the fewest a store of {@code nodes} members
   * accepts (a majority of them must hold an owner of every key), and at least 2.
   */
  static int owners(int nodes) {
    return Math.max(2, nodes - (nodes / 2 + 1) + 1);
  }
}
