package dev.larder.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short server kill trial CI runs (bounded at 2 minutes): 3 clustered server JVMs under Redis
 * clients' writes, quorum partition handling; one SIGKILL and one member cut off and healed lose no
 * acknowledged write, and the cut-off member refuses writes. The cut is noticed and healed without
 * waiting for the failure detector's and MERGE3's timers ({@link ServerClusterKillTrial#nudging}),
 * which {@code ./larder bench server-cluster-kill -P partitions=N} waits for. (The same trial under
 * allow-all reports the cut-off member's acknowledged writes as lost: {@code ./larder bench
 * server-cluster-kill --quick -P handling=allow-all -P kills=0 -P partitions=1}.) And the durable
 * cluster's, DISTRIBUTED with two owners (each member's log holds its share only, so each segment
 * must start from the newest of its copies): members with a data directory each under {@code
 * appendfsync always}, one SIGKILLed and restarted, then a full restart (one member SIGKILLed,
 * writes acknowledged without it, the others SIGKILLed at once, all restarted with the one killed
 * first a second ahead) lose no acknowledged write. (In memory the same full restart loses them,
 * which shows the count can fail: {@code ./larder bench server-cluster-kill --quick -P
 * modes=distributed -P kills=0 -P restarts=1 -P persistence=off}; the replicated durable cluster's:
 * {@code -P modes=replicated -P persistence=always}.)
 */
class ServerClusterKillTrialTest {

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void quorumLosesNoAcknowledgedWrite() throws Exception {
    ServerClusterKillTrial.Result r =
        new ServerClusterKillTrial("replicated", "quorum", 3, 1, 1, 300, 1000, line -> {})
            .nudging()
            .run();
    assertEquals(1, r.kills());
    assertEquals(1, r.partitions());
    assertTrue(r.acknowledged() > 0, "the writers wrote: " + r);
    assertTrue(r.refused() > 0, "the cut-off member refused writes: " + r);
    assertEquals(0, r.lost(), r.toString());
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS) // 150 s on a 2-core machine at load average 28
  void aDurableClusterKeepsEveryAcknowledgedWriteAcrossAFullRestart() throws Exception {
    ServerClusterKillTrial.Result r =
        new ServerClusterKillTrial(
                "distributed", "quorum", 3, 1, 0, 300, 2000, 1, "always", true, line -> {})
            .run();
    assertEquals(1, r.kills());
    assertEquals(1, r.restarts());
    assertTrue(r.acknowledged() > 0, "the writers wrote: " + r);
    assertEquals(0, r.lost(), r.toString());
  }
}
