package dev.larder.cluster;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The cache contract of {@link ClusterContractTest} in distributed mode with a near cache and
 * expire-after-write (a long one: nothing expires during the test), so that reads on non-owners go
 * through the near cache and stored values carry expiry stamps.
 */
class NearExpiryContractTest extends ClusterContractTest {

  static Stream<Arguments> sharing() {
    return Stream.of(
        Arguments.of(ClusterMode.DISTRIBUTED, Replication.SYNC),
        Arguments.of(ClusterMode.DISTRIBUTED, Replication.ASYNC));
  }

  static Stream<Arguments> all() {
    return sharing();
  }

  @Override
  InProcessCluster newCluster(ClusterMode mode, Replication replication) {
    return new InProcessCluster(
        mode, replication, 3, -1, 2, b -> b.nearCache(1000).expireAfterWrite(Duration.ofHours(1)));
  }
}
