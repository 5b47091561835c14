package dev.larder.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short server kill trial CI runs: 3 clustered server JVMs, DISTRIBUTED with two owners, each
 * with a data directory under {@code appendfsync always} (each member's log holds its share only,
 * so each segment must start from the newest of its copies), under Redis clients' writes, quorum
 * partition handling. One SIGKILL of a member, restarted into the running cluster; one member cut
 * off and healed, which refuses writes meanwhile; and one full restart (one member SIGKILLed,
 * writes acknowledged without it, the others SIGKILLed at once, all restarted with the one killed
 * first a second ahead): no acknowledged write is lost. The cut is noticed and healed without
 * waiting for the failure detector's and MERGE3's timers ({@link ServerClusterKillTrial#nudging}),
 * which {@code ./larder bench server-cluster-kill -P partitions=N} waits for. One cluster runs
 * every fault, so that CI starts three JVMs once. (Under allow-all the same trial reports the
 * cut-off member's acknowledged writes as lost: {@code ./larder bench server-cluster-kill --quick
 * -P handling=allow-all -P kills=0 -P partitions=1}; in memory the same full restart loses them:
 * {@code ./larder bench server-cluster-kill --quick -P modes=distributed -P kills=0 -P restarts=1
 * -P persistence=off}; both show that the count can fail. Replicated mode's cut under quorum is
 * larder-server's {@code ClusterQuorumServerTest}.)
 */
class ServerClusterKillTrialTest {

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS) // 150 s on a 2-core machine at load average 28
  void aDurableClusterLosesNoAcknowledgedWriteToAKillACutOrAFullRestart() throws Exception {
    ServerClusterKillTrial.Result r =
        new ServerClusterKillTrial(
                "distributed", "quorum", 3, 1, 1, 300, 1000, 1, "always", true, line -> {})
            .nudging()
            .run();
    assertEquals(1, r.kills());
    assertEquals(1, r.partitions());
    assertEquals(1, r.restarts());
    assertTrue(r.acknowledged() > 0, "the writers wrote: " + r);
    assertTrue(r.refused() > 0, "the cut-off member refused writes: " + r);
    assertEquals(0, r.lost(), r.toString());
  }
}
