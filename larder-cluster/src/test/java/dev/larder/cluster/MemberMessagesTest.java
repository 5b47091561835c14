package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ClusteredCache#broadcast}: an application's messages reach every other member once, in the
 * sender's order; {@link ClusteredCache#broadcastAndWait} returns only once every other member's
 * receiver has run; the receiver hears which members left a view.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MemberMessagesTest {

  /** Records what a member receives. */
  private static final class Recorder implements MemberMessages {
    final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final BlockingQueue<List<String>> left = new LinkedBlockingQueue<>();
    volatile CountDownLatch hold = new CountDownLatch(0);

    @Override
    public void received(String member, byte[] payload) {
      try {
        hold.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      messages.add(member + ":" + new String(payload, StandardCharsets.UTF_8));
    }

    @Override
    public void viewChanged(List<String> members, List<String> gone, boolean merge) {
      if (!gone.isEmpty()) {
        left.add(gone);
      }
    }
  }

  private static ClusteredCache<String, String> member(String cluster, String name, int size) {
    return ClusteredCache.builder(String.class, String.class)
        .cluster(
            ClusterConfig.builder()
                .stack(Stacks.IN_PROCESS)
                .clusterName(cluster)
                .nodeName(name)
                .mode(ClusterMode.DISTRIBUTED)
                .owners(2)
                .timeout(Duration.ofSeconds(10))
                .segments(16)
                .initialClusterSize(size)
                .build())
        .build();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void messagesReachEveryOtherMemberInTheSendersOrder() throws Exception {
    String cluster = "member-messages-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    List<ClusteredCache<String, String>> members = new ArrayList<>();
    try {
      AtomicReferenceArray<ClusteredCache<String, String>> built = new AtomicReferenceArray<>(3);
      List<Thread> starts = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int n = i;
        starts.add(Thread.ofPlatform().start(() -> built.set(n, member(cluster, "m" + n, 3))));
      }
      for (Thread t : starts) {
        t.join(60_000);
      }
      Recorder[] recorders = new Recorder[3];
      for (int i = 0; i < 3; i++) {
        ClusteredCache<String, String> c = built.get(i);
        assertNotNull(c, "member " + i + " started");
        members.add(c);
        recorders[i] = new Recorder();
        c.onMessages(recorders[i]);
      }
      assertThrows(IllegalStateException.class, () -> members.get(0).onMessages(new Recorder()));
      for (int i = 0; i < 100; i++) {
        members.get(0).broadcast(utf8("a" + i));
        members.get(2).broadcast(utf8("c" + i));
      }
      for (int r : new int[] {1, 2}) {
        List<String> fromA = new ArrayList<>();
        List<String> fromC = new ArrayList<>();
        for (int i = 0; i < (r == 2 ? 100 : 200); i++) {
          String m = recorders[r].messages.poll(30, TimeUnit.SECONDS);
          assertNotNull(m, "member " + r + " got " + i + " messages");
          (m.startsWith("m0:") ? fromA : fromC).add(m.substring(3));
        }
        List<String> expectedA = new ArrayList<>();
        List<String> expectedC = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
          expectedA.add("a" + i);
          expectedC.add("c" + i);
        }
        assertEquals(expectedA, fromA, "member " + r + " got m0's messages once, in order");
        assertEquals(r == 1 ? expectedC : List.of(), fromC, "and m2's, none of its own");
      }
      for (int i = 0; i < 100; i++) {
        assertEquals("m2:c" + i, recorders[0].messages.poll(30, TimeUnit.SECONDS));
      }
      assertNull(recorders[0].messages.poll(100, TimeUnit.MILLISECONDS), "none of its own");

      // broadcastAndWait returns only once the receivers ran: hold member 1's receiver
      recorders[1].hold = new CountDownLatch(1);
      CompletableFuture<Void> waited =
          CompletableFuture.runAsync(() -> members.get(0).broadcastAndWait(utf8("w")));
      assertEquals("m0:w", recorders[2].messages.poll(30, TimeUnit.SECONDS));
      assertThrows(
          TimeoutException.class,
          () -> waited.get(300, TimeUnit.MILLISECONDS),
          "it waits for member 1's receiver");
      recorders[1].hold.countDown();
      waited.get(30, TimeUnit.SECONDS);
      assertEquals("m0:w", recorders[1].messages.poll(30, TimeUnit.SECONDS));

      members.remove(2).close();
      assertEquals(List.of("m2"), recorders[0].left.poll(30, TimeUnit.SECONDS));
      assertEquals(List.of("m2"), recorders[1].left.poll(30, TimeUnit.SECONDS));
    } finally {
      members.forEach(ClusteredCache::close);
    }
  }
}
