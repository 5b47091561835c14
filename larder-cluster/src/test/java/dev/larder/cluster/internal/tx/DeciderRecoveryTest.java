package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member that logs the DECIDE of a transaction it does not hold pending (a decider that takes no
 * part) reports the decision to the next reconfiguration, before and after a restart from its log.
 */
@Timeout(30)
class DeciderRecoveryTest {

  private static final int SEGMENTS = 8;

  @Test
  void aDecisionWithoutItsTransactionIsReportedAfterARestart(@TempDir Path dir) {
    WalConfig wal = WalConfig.of(dir).withPolicy(FsyncPolicy.always());
    MemberState m = MemberState.open(wal, SEGMENTS, 2);
    long self = m.memberId();
    Ballot b = new Ballot(1, self);
    TxFrame.Proposal p =
        new TxFrame.Proposal(
            b,
            1,
            0,
            0,
            List.of(new TxFrame.Member(self, 1, 2), new TxFrame.Member(self + 2, 3, 4)),
            List.of(new long[SEGMENTS], new long[SEGMENTS]),
            List.of());
    assertEquals(TxFrame.A_OK, m.query(new TxFrame.Query(0, b, 1)).status());
    assertEquals(TxFrame.A_OK, m.accept(p).status());
    m.install(p);
    TxId txid = new TxId(7, 1);
    assertEquals(TxFrame.A_OK, m.decide(new TxFrame.Decide(0, b, txid, 123)).status());
    assertReported(m, new Ballot(2, self), txid, b);
    m.close();

    MemberState restarted = MemberState.open(wal, SEGMENTS, 2);
    try {
      assertReported(restarted, new Ballot(3, self), txid, b);
    } finally {
      restarted.close();
    }
  }

  private static void assertReported(MemberState m, Ballot query, TxId txid, Ballot decided) {
    TxFrame.Report r = m.query(new TxFrame.Query(0, query, 2));
    assertEquals(TxFrame.A_OK, r.status());
    assertTrue(
        r.pending().contains(new TxFrame.PendingReport(txid, TxFrame.D_COMMIT, decided, 123, 1)),
        "reported: " + r.pending());
  }
}
