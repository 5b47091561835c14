package dev.larder.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short fault trial of clustered servers with {@code cluster-transactions on} that CI runs: 3
 * server JVMs, each logging its commits in its own directory ({@code appendfsync everysec}), under
 * Redis clients running conflicting MULTI/EXEC bank transfers through every member; one member
 * SIGKILLed mid-run and restarted, then every member SIGKILLed at once and all restarted from their
 * logs, then one cut off and healed. No EXEC is half applied (every audit and every member's final
 * balances sum to the constant and match the committed transfers' records), none acknowledged is
 * lost (across the restart of the whole cluster too), none refused is applied, every key takes a
 * write within 30 s of each fault settling, and the cut-off member refuses EXECs with CLUSTERDOWN.
 * The long trial: {@code ./larder bench cluster-tx -P parts=server}.
 */
class ServerClusterTxTrialTest {

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void killsOfOneAndOfEveryMemberAndACutLeaveNoHalfTransactionLockedKeyOrLostCommit()
      throws Exception {
    ServerClusterTxTrial.Result r =
        new ServerClusterTxTrial("replicated", 3, 2, 2, "everysec", 1, 300, 3000, 2, line -> {})
            .run();
    assertEquals(2, r.kills());
    assertEquals(1, r.killAll(), "the second kill is of every member");
    assertEquals(1, r.partitions());
    assertTrue(r.commits() > 0 && r.audits() > 0, "the clients ran: " + r);
    assertEquals(0, r.anomalies(), r.toString());
    assertEquals(0, r.lost(), r.toString());
    assertEquals(0, r.lockedKeys(), r.toString());
    assertTrue(r.refused() > 0, "the cut-off member refused EXECs with CLUSTERDOWN: " + r);
  }
}
