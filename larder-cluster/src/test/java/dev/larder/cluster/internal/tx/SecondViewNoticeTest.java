package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.tx.Isolation;
import org.jgroups.View;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A view's notice reaches the engine on a worker thread, so a reconfiguration scheduled by an older
 * view can run for the newest one before that view's own notice arrives and schedules another. The
 * second must not install a second epoch for the same view: that epoch would abort every
 * transaction in flight (a start-up commit was aborted so, and waited out its timeout before its
 * originator registered for the outcome ahead of PREPARE).
 */
@Timeout(120)
class SecondViewNoticeTest {

  @Test
  void aSecondNoticeOfTheViewAnEpochWasInstalledForStartsNoEpoch() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null)) {
      c.awaitEpoch(3);
      int coord = c.coordinator();
      ClusterTxEngine engine = c.engine(coord);
      long before = engine.epochNumber();
      View view = engine.channel().getView();
      engine.onView(view);
      engine.awaitReconfigurationThread(60_000);
      for (int i = 0; i < c.size; i++) {
        assertEquals(
            before,
            c.engine(i).epochNumber(),
            "m" + i + " installed another epoch for view " + view.getViewId() + c.describe());
      }
      // the engine still reconfigures when a member leaves
      c.crash(coord == 2 ? 1 : 2);
      c.awaitEpoch(2);
    }
  }
}
