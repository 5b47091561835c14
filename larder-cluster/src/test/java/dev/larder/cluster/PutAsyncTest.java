package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.testing.HeldMessages;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ClusteredCache#putAsync} on a key's primary under SYNC returns once the value is applied
 * there and sent, and completes once the backup acknowledged it, or fails with {@link
 * ClusterTimeoutException} when it does not in time; {@link ClusteredCache#countedValuesStored}
 * counts what a member's store takes as primary, as backup and by state transfer.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PutAsyncTest {

  private static String keyOwnedBy(ClusteredCache<String, String> member) {
    for (int i = 0; ; i++) {
      if (member.isLocalPrimary("k" + i)) {
        return "k" + i;
      }
    }
  }

  /** Member 1 of {@code c} holding member 0's regular messages once told to. */
  private static HeldMessages slowBackup(InProcessCluster c) {
    HeldMessages held = new HeldMessages(InProcessCluster.channel(c.node(0)).getAddress());
    InProcessCluster.channel(c.node(1)).getProtocolStack().insertProtocolAtTop(held);
    return held;
  }

  @Test
  void completesOnceTheBackupAcknowledges() throws Exception {
    try (InProcessCluster c = new InProcessCluster(ClusterMode.REPLICATED, Replication.SYNC, 2)) {
      HeldMessages held = slowBackup(c);
      String key = keyOwnedBy(c.node(0));
      held.hold();
      CompletableFuture<Void> done = c.node(0).putAsync(key, "v").toCompletableFuture();
      assertEquals("v", c.node(0).get(key), "applied on the primary when putAsync returns");
      InProcessCluster.await(() -> held.held() > 0, "the backup holds the write");
      assertFalse(done.isDone(), "not acknowledged while the backup holds it");
      held.release();
      done.get(30, TimeUnit.SECONDS);
      assertEquals("v", c.node(1).get(key));
    }
  }

  @Test
  void failsWithATimeoutWhenTheBackupDoesNotAnswer() throws Exception {
    try (InProcessCluster c = new InProcessCluster(ClusterMode.REPLICATED, Replication.SYNC, 2)) {
      HeldMessages held = slowBackup(c);
      String key = keyOwnedBy(c.node(0));
      held.hold();
      CompletableFuture<Void> done = c.node(0).putAsync(key, "v").toCompletableFuture();
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> done.get(60, TimeUnit.SECONDS));
      assertInstanceOf(ClusterTimeoutException.class, e.getCause());
      held.release();
    }
  }

  @Test
  void aPutThroughAnotherMemberCompletesBeforeItReturns() throws Exception {
    try (InProcessCluster c = new InProcessCluster(ClusterMode.REPLICATED, Replication.SYNC, 2)) {
      String key = keyOwnedBy(c.node(0));
      CompletableFuture<Void> done = c.node(1).putAsync(key, "v").toCompletableFuture();
      assertTrue(done.isDone() && !done.isCompletedExceptionally(), "forwarded as put is");
      assertEquals("v", c.node(0).get(key));
    }
  }

  @Test
  void countsTheValuesAStoreTakesByEveryPath() {
    try (InProcessCluster c =
        new InProcessCluster(
            ClusterMode.REPLICATED,
            Replication.SYNC,
            2,
            -1,
            2,
            b -> b.countStoredValues(v -> true))) {
      String key = keyOwnedBy(c.node(0));
      c.node(1).put(key, "through the backup");
      assertEquals(1, c.node(0).countedValuesStored(), "the primary applied it");
      assertEquals(1, c.node(1).countedValuesStored(), "the backup applied it");
      ClusteredCache<String, String> joiner = c.add();
      c.awaitMembers(3);
      c.awaitRebalanced();
      assertEquals(1, joiner.countedValuesStored(), "state transfer brought it");
    }
  }
}
