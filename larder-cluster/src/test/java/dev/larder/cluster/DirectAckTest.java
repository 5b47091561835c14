package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.internal.ClusteredLarderCache;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A SYNC write sent to its primary by another member returns only once every owner has applied
 * it, although the backups ack to the caller directly (not through the primary): right after
 * each put, every owner's local read (owners read their own copy) returns the value just
 * written. In REPLICATED mode the caller is itself a backup, so this checks its own copy too.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DirectAckTest {

  private static final int KEYS = 300;
  private static final int ROUNDS = 3;

  @ParameterizedTest
  @EnumSource(value = ClusterMode.class, names = {"REPLICATED", "DISTRIBUTED"})
  void everyOwnerHoldsASyncWriteWhenItReturns(ClusterMode mode) {
    try (InProcessCluster c = new InProcessCluster(mode, Replication.SYNC, 3)) {
      int remoteWrites = 0;
      for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < KEYS; k++) {
          String key = "k" + k;
          ClusteredCache<String, String> writer = writerFor(c, key, k);
          String value = "v" + round + "-" + k;
          writer.put(key, value);
          List<ClusteredCache<String, String>> owners = new ArrayList<>();
          for (ClusteredCache<String, String> n : c.nodes) {
            if (n.isLocalOwner(key)) {
              owners.add(n);
            }
          }
          assertEquals(mode == ClusterMode.REPLICATED ? 3 : 2, owners.size(), key);
          for (ClusteredCache<String, String> o : owners) {
            assertEquals(value, o.getIfPresent(key), key + " on " + o.nodeName()
                + " right after " + writer.nodeName() + "'s put returned");
          }
          if (!isPrimary(writer, key)) {
            remoteWrites++;
          }
        }
      }
      assertTrue(remoteWrites > KEYS, "too few writes went to another member: " + remoteWrites);
    }
  }

  /** A member that does not own the key (distributed), or any member (replicated), in turn. */
  private static ClusteredCache<String, String> writerFor(InProcessCluster c, String key, int k) {
    for (int i = 0; i < 3; i++) {
      ClusteredCache<String, String> n = c.node((k + i) % 3);
      if (!n.isLocalOwner(key)) {
        return n;
      }
    }
    return c.node(k % 3);
  }

  /** Whether the writer is the key's primary: the first owner by the cluster's own answer. */
  private static boolean isPrimary(ClusteredCache<String, String> writer, String key) {
    return ((ClusteredLarderCache<String, String>) writer).isLocalPrimary(key);
  }
}
