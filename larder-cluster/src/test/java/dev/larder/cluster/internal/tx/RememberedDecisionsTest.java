package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
 * Decisions across several reconfigurations (docs/design/cluster-transactions.md): what a
 * reconfiguration chose for a transaction is not forgotten when its epoch is installed, nor across
 * a restart, and a later reconfiguration takes it over a stale report of the transaction.
 */
@Timeout(30)
class RememberedDecisionsTest {

  private static final int SEGMENTS = 8;
  private static final TxId T = new TxId(7, 1);

  private static TxFrame.Proposal proposal(
      Ballot b, long epoch, long base, long self, List<TxFrame.Decision> decisions) {
    return new TxFrame.Proposal(
        b,
        epoch,
        base,
        0,
        List.of(new TxFrame.Member(self, 1, 2), new TxFrame.Member(self + 2, 3, 4)),
        List.of(new long[SEGMENTS], new long[SEGMENTS]),
        decisions);
  }

  /**
   * A member accepts a proposal under ballot 3, then gets the INSTALL of an older chosen proposal
   * (ballot 2, a newer epoch than its own): it installs that epoch and keeps the proposal of ballot
   * 3 (a value accepted under a higher ballot), and after a restart from its log it must still
   * report it (the replay of the EPOCH record cleared it).
   */
  @Test
  void aProposalAcceptedUnderAHigherBallotThanTheInstalledOneSurvivesARestart(@TempDir Path dir) {
    WalConfig wal = WalConfig.of(dir).withPolicy(FsyncPolicy.always());
    MemberState m = MemberState.open(wal, SEGMENTS, 2);
    long self = m.memberId();
    Ballot b1 = new Ballot(1, self);
    assertEquals(TxFrame.A_OK, m.query(new TxFrame.Query(0, b1, 1)).status());
    TxFrame.Proposal first = proposal(b1, 1, 0, self, List.of());
    assertEquals(TxFrame.A_OK, m.accept(first).status());
    m.install(first);
    Ballot b3 = new Ballot(3, self);
    assertEquals(TxFrame.A_OK, m.query(new TxFrame.Query(0, b3, 2)).status());
    TxFrame.Proposal accepted =
        proposal(b3, 3, 1, self, List.of(new TxFrame.Decision(T, TxFrame.D_ABORT, 0, 1)));
    assertEquals(TxFrame.A_OK, m.accept(accepted).status());
    m.install(proposal(new Ballot(2, self), 2, 1, self, List.of()));
    TxFrame.PendingReport expected = new TxFrame.PendingReport(T, TxFrame.D_ABORT, b3, 0, 1);
    assertReported(m, new Ballot(4, self), expected, 3);
    m.close();

    MemberState restarted = MemberState.open(wal, SEGMENTS, 2);
    try {
      assertReported(restarted, new Ballot(5, self), expected, 3);
    } finally {
      restarted.close();
    }
  }

  /** The installed proposal's decisions are reported under its ballot, live and after a restart. */
  @Test
  void theInstalledProposalsDecisionsAreRememberedAcrossARestart(@TempDir Path dir) {
    WalConfig wal = WalConfig.of(dir).withPolicy(FsyncPolicy.always());
    MemberState m = MemberState.open(wal, SEGMENTS, 2);
    long self = m.memberId();
    Ballot b = new Ballot(1, self);
    assertEquals(TxFrame.A_OK, m.query(new TxFrame.Query(0, b, 1)).status());
    TxFrame.Proposal p =
        proposal(b, 2, 1, self, List.of(new TxFrame.Decision(T, TxFrame.D_ABORT, 0, 1)));
    m.install(p);
    TxFrame.Remembered expected = new TxFrame.Remembered(1, b, p.decisions());
    assertEquals(expected, m.query(new TxFrame.Query(0, new Ballot(2, self), 2)).remembered());
    m.close();
    for (int round = 3; round <= 4; round++) {
      // first from the EPOCH record, then from a checkpoint
      MemberState restarted = MemberState.open(wal, SEGMENTS, 2);
      try {
        TxFrame.Report r = restarted.query(new TxFrame.Query(0, new Ballot(round, self), round));
        assertEquals(expected, r.remembered());
        assertEquals(2, r.installed());
        restarted.checkpoint();
      } finally {
        restarted.close();
      }
    }
  }

  private static void assertReported(
      MemberState m, Ballot query, TxFrame.PendingReport expected, long epoch) {
    TxFrame.Report r = m.query(new TxFrame.Query(0, query, 2));
    assertEquals(TxFrame.A_OK, r.status());
    assertEquals(epoch, r.epoch());
    assertTrue(r.pending().contains(expected), "reported: " + r.pending());
  }

  private static TxFrame.Report report(
      long installed, List<TxFrame.PendingReport> pending, TxFrame.Remembered remembered) {
    return new TxFrame.Report(
        0,
        TxFrame.A_OK,
        Ballot.ZERO,
        installed,
        installed,
        installed,
        0,
        new long[] {installed},
        pending,
        remembered);
  }

  /**
   * The cut-off originator reports its DECIDE (ballot of epoch 1); the others installed epoch 2,
   * whose reconfiguration (made from epoch 1) chose ABORT: ABORT wins, though its ballot is not
   * reported with the transaction's (the others hold it no longer).
   */
  @Test
  void whatTheNextEpochsReconfigurationChoseWinsOverAStaleCommit() {
    Ballot e1 = new Ballot(1, 1);
    Ballot e2 = new Ballot(2, 2);
    TxFrame.Report stale =
        report(
            1,
            List.of(new TxFrame.PendingReport(T, TxFrame.D_COMMIT, e1, 500, 1)),
            TxFrame.Remembered.NONE);
    TxFrame.Report chose =
        report(
            2,
            List.of(),
            new TxFrame.Remembered(1, e2, List.of(new TxFrame.Decision(T, TxFrame.D_ABORT, 0, 1))));
    assertEquals(
        List.of(new TxFrame.Decision(T, TxFrame.D_ABORT, 0, 1)),
        Reconfiguration.decisions(List.of(stale, chose)));

    TxFrame.Report committed =
        report(
            2,
            List.of(),
            new TxFrame.Remembered(
                1, e2, List.of(new TxFrame.Decision(T, TxFrame.D_COMMIT, 500, 1))));
    assertEquals(
        List.of(new TxFrame.Decision(T, TxFrame.D_COMMIT, 500, 1)),
        Reconfiguration.decisions(List.of(stale, committed)));

    // made from epoch 1 and not naming it: it was never chosen
    TxFrame.Report silent = report(2, List.of(), new TxFrame.Remembered(1, e2, List.of()));
    assertEquals(
        List.of(new TxFrame.Decision(T, TxFrame.D_ABORT, 0, 1)),
        Reconfiguration.decisions(List.of(stale, silent)));

    // the others have installed epoch 3 since, and remember only its reconfiguration: in doubt
    TxFrame.Report later =
        report(3, List.of(), new TxFrame.Remembered(2, new Ballot(3, 2), List.of()));
    assertEquals(
        List.of(new TxFrame.Decision(T, TxFrame.D_UNKNOWN, 0, 1)),
        Reconfiguration.decisions(List.of(stale, later)));
  }

  /** Within the newest installed epoch, Paxos' rule: the highest-ballot decision, else ABORT. */
  @Test
  void aTransactionOfTheNewestEpochTakesTheHighestBallotDecision() {
    Ballot e2 = new Ballot(2, 2);
    TxFrame.Report decided =
        report(
            2,
            List.of(new TxFrame.PendingReport(T, TxFrame.D_COMMIT, e2, 700, 2)),
            TxFrame.Remembered.NONE);
    TxFrame.Report undecided =
        report(
            2,
            List.of(new TxFrame.PendingReport(T, TxFrame.D_NONE, Ballot.ZERO, 0, 2)),
            TxFrame.Remembered.NONE);
    assertEquals(
        List.of(new TxFrame.Decision(T, TxFrame.D_COMMIT, 700, 2)),
        Reconfiguration.decisions(List.of(undecided, decided)));
    assertEquals(
        List.of(new TxFrame.Decision(T, TxFrame.D_ABORT, 0, 2)),
        Reconfiguration.decisions(List.of(undecided)));
  }

  /**
   * Two members hold a segment at the same epoch; the one that installed a newer epoch applied that
   * epoch's decisions to it, the other did not: only the first is a holder.
   */
  @Test
  void ofMembersHoldingASegmentAtOneEpochOnlyThoseThatInstalledTheNewestHoldIt() {
    TxFrame.Report fresh = withHeld(report(3, List.of(), TxFrame.Remembered.NONE), 2, 3);
    TxFrame.Report stale = withHeld(report(2, List.of(), TxFrame.Remembered.NONE), 2, 2);
    List<long[]> held = Reconfiguration.held(List.of(fresh, stale));
    assertArrayEquals(new long[] {2, 3}, held.get(0));
    assertArrayEquals(new long[] {0, 2}, held.get(1));
  }

  private static TxFrame.Report withHeld(TxFrame.Report r, long... held) {
    return new TxFrame.Report(
        r.reqId(),
        r.status(),
        r.promised(),
        r.memberId(),
        r.epoch(),
        r.installed(),
        r.clock(),
        held,
        r.pending(),
        r.remembered());
  }
}
