package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.tx.Isolation;
import dev.larder.tx.TxCache;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A commit acknowledged through one member is read through any other at once, even when the
 * originator's clock runs ahead of the reader's (its commit timestamp is then above the reader's
 * next snapshot unless the reader learned it): through an owner of the key whose APPLY is held back
 * (it learned the timestamp from the DECIDE the acknowledgement waited for, and its read waits for
 * the APPLY), and through a member that owns none of the key (its owner tells it of the commit
 * above its snapshot, and the read runs again above it).
 */
@Timeout(120)
class ReadYourWritesTest {

  /** How far ahead of the others the originator's clock is put: well within the allowed skew. */
  private static final long AHEAD_MILLIS = 300;

  @Test
  void anOwnerWhoseApplyIsLateReadsTheAcknowledgedCommit() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null)) {
      c.awaitEpoch(3);
      FrameFilter late = FrameFilter.install(c.engine(0));
      late.delay((to, frame) -> frame instanceof TxFrame.Apply, 700);
      for (long v = 1; v <= 3; v++) {
        putAhead(c, 0, "ryw", v);
        for (int reader = 1; reader < 3; reader++) {
          assertEquals(
              v, c.kv(reader).get("ryw"), "m" + reader + " reads the commit acknowledged by m0");
        }
      }
    }
  }

  @Test
  void aMemberOwningNoneOfTheKeyReadsTheAcknowledgedCommit() throws Exception {
    try (TxTestCluster c = new TxTestCluster(3, Isolation.SERIALIZABLE, null, 2)) {
      c.awaitEpoch(3);
      String key = null;
      for (int n = 0; key == null; n++) {
        List<Integer> owners = c.ownersOf("remote-" + n);
        if (owners.equals(List.of(0, 1)) || owners.equals(List.of(1, 0))) {
          key = "remote-" + n;
        }
      }
      for (long v = 1; v <= 3; v++) {
        c.engine(1).member().store.clock.observe(ahead());
        putAhead(c, 0, key, v);
        assertEquals(v, c.kv(2).get(key), "m2, no owner, reads the commit acknowledged by m0");
      }
    }
  }

  /** Puts {@code value} through member {@code m}, its clock first moved ahead of the others. */
  private static void putAhead(TxTestCluster c, int m, String key, long value) {
    c.engine(m).member().store.clock.observe(ahead());
    TxCache<String, Long> kv = c.kv(m);
    c.store(m)
        .inTransaction(
            tx -> {
              tx.put(kv, key, value);
              return null;
            });
  }

  private static long ahead() {
    return (System.currentTimeMillis() + AHEAD_MILLIS) << 20;
  }
}
