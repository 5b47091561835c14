package dev.larder.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusterMode;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The short kill trial CI runs, in each mode: 3 member JVMs under SYNC writes, one SIGKILLed and a
 * fresh JVM rejoining in its place, and then every member, the rejoined one included, reads every
 * acknowledged write of every incarnation: none may be lost. One kill a mode: kills in a row (a
 * restarted member killed in its turn, the survivors' copies passed on again and again) are the
 * bench's long trial, {@code ./larder bench cluster-kill} (100 kills a mode; {@code --quick}, 3).
 */
class ClusterKillTrialTest {

  @ParameterizedTest
  @EnumSource(
      value = ClusterMode.class,
      names = {"REPLICATED", "DISTRIBUTED"})
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void aKilledMemberLosesNoAcknowledgedWrite(ClusterMode mode) throws Exception {
    ClusterKillTrial.Result r = new ClusterKillTrial(mode, 3, 1, 300, line -> {}).run();
    assertEquals(1, r.kills());
    assertTrue(r.acked() > 0, "the writers wrote: " + r);
    assertEquals(3, r.verifiedMembers());
    assertEquals(0, r.losses(), r.toString());
  }
}
