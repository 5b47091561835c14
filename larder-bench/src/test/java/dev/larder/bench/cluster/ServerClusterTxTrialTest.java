package dev.larder.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short fault trial of clustered servers with {@code cluster-transactions on} that CI runs: 3
 * server JVMs under Redis clients running conflicting MULTI/EXEC bank transfers through every
 * member; one member SIGKILLed mid-run and restarted, then one cut off and healed. No EXEC is half
 * applied (every audit and every member's final balances sum to the constant and match the
 * committed transfers' records), none acknowledged is lost, none refused is applied, every key
 * takes a write within 30 s of each fault settling, and the cut-off member refuses EXECs with
 * CLUSTERDOWN. The long trial: {@code ./larder bench cluster-tx -P parts=server}.
 */
class ServerClusterTxTrialTest {

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void aKillAndACutMidExecLeaveNoHalfTransactionLockedKeyOrLostCommit() throws Exception {
    ServerClusterTxTrial.Result r =
        new ServerClusterTxTrial("replicated", 3, 1, 1, 300, 1500, 2, line -> {}).run();
    assertEquals(1, r.kills());
    assertEquals(1, r.partitions());
    assertTrue(r.commits() > 0 && r.audits() > 0, "the clients ran: " + r);
    assertEquals(0, r.anomalies(), r.toString());
    assertEquals(0, r.lost(), r.toString());
    assertEquals(0, r.lockedKeys(), r.toString());
    assertTrue(r.refused() > 0, "the cut-off member refused EXECs with CLUSTERDOWN: " + r);
  }
}
