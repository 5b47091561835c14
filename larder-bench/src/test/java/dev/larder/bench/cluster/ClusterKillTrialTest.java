package dev.larder.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusterMode;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The short kill trial CI runs: 3 JVMs, 2 SIGKILLs, no acknowledged write lost. */
class ClusterKillTrialTest {

  @ParameterizedTest
  @EnumSource(
      value = ClusterMode.class,
      names = {"REPLICATED", "DISTRIBUTED"})
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void killedMembersLoseNoAcknowledgedWrite(ClusterMode mode) throws Exception {
    ClusterKillTrial.Result r = new ClusterKillTrial(mode, 3, 2, 300, line -> {}).run();
    assertEquals(2, r.kills());
    assertTrue(r.acked() > 0, "the writers wrote: " + r);
    assertEquals(3, r.verifiedMembers());
    assertEquals(0, r.losses(), r.toString());
  }
}
