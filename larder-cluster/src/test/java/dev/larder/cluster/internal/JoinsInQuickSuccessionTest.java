package dev.larder.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.Stacks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.jgroups.Event;
import org.jgroups.Message;
import org.jgroups.View;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Members without a journal that join one after another without waiting for each other's state
 * transfer. The founder answers no pull until the fourth member's view (a protocol inserted on its
 * stack drops the state it sends for earlier views), so every joiner is still receiving when the
 * next view comes: the founder, which gave up a third of the segments in the third member's view,
 * is then their only complete holder. Every entry written before the joins must be readable after
 * them, and no member may start a segment empty.
 */
class JoinsInQuickSuccessionTest {

  private static final int SEGMENTS = 64;
  private static final int ENTRIES = 600;
  private static final int MEMBERS = 4;

  /**
   * Drops the STATE frames its member sends for views of fewer than {@link #MEMBERS} members, as if
   * every such transfer were still under way when the next view came. Put at the top of the stack,
   * above any layer that would retransmit them. Thread-safe.
   */
  static final class HoldEarlyState extends Protocol {
    private volatile long firstFullView = Long.MAX_VALUE;
    private final AtomicInteger dropped = new AtomicInteger();

    @Override
    public Object up(Event evt) {
      if (evt.getType() == Event.VIEW_CHANGE) {
        View v = evt.getArg();
        if (v.size() >= MEMBERS && firstFullView == Long.MAX_VALUE) {
          // seen here before the member installs the view, so before it serves a pull of it
          firstFullView = v.getViewId().getId();
        }
      }
      return up_prot.up(evt);
    }

    @Override
    public Object down(Message msg) {
      if (msg.getLength() > 0 && msg.getArray() != null) {
        Frame f;
        try {
          f = Frame.decode(msg.getArray(), msg.getOffset(), msg.getLength());
        } catch (RuntimeException notAFrame) {
          return down_prot.down(msg);
        }
        if (f.type() == Frame.T_STATE && f.viewId() < firstFullView) {
          dropped.incrementAndGet();
          return null;
        }
      }
      return down_prot.down(msg);
    }
  }

  private static ClusteredCache<String, String> member(String cluster, int i) {
    ClusterConfig config =
        ClusterConfig.builder()
            .stack(Stacks.IN_PROCESS)
            .clusterName(cluster)
            .nodeName("quick-n" + i)
            .mode(ClusterMode.DISTRIBUTED)
            .owners(2)
            // generous: a slow machine must never turn a wait of this test into a failure
            .timeout(Duration.ofSeconds(30))
            .segments(SEGMENTS)
            .build();
    return ClusteredCache.builder(String.class, String.class).cluster(config).build();
  }

  @Test
  @Timeout(180)
  void entriesWrittenBeforeJoinsInQuickSuccessionAreAllReadableAfterThem() throws Exception {
    String cluster = "quick-joins-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    List<ClusteredCache<String, String>> nodes = new ArrayList<>();
    try {
      ClusteredCache<String, String> founder = member(cluster, 0);
      nodes.add(founder);
      for (int k = 0; k < ENTRIES; k++) {
        founder.put("k" + k, "v" + k);
      }
      HoldEarlyState hold = new HoldEarlyState();
      ProtocolStack stack =
          ((ClusteredLarderCache<?, ?>) founder).engine().channel().getProtocolStack();
      stack.insertProtocol(hold, ProtocolStack.Position.ABOVE, stack.getTopProtocol().getClass());
      for (int i = 1; i < MEMBERS; i++) {
        // build() returns once the member is in the view, before its state transfer ends
        nodes.add(member(cluster, i));
      }
      await(() -> nodes.stream().allMatch(n -> n.members().size() == MEMBERS), "a full view");
      for (ClusteredCache<String, String> n : nodes) {
        assertTrue(
            n.awaitRebalanced(Duration.ofSeconds(90)),
            n.nodeName() + " did not finish its state transfer");
      }
      assertTrue(hold.dropped.get() > 0, "the founder's early state was held back");
      List<String> missing = new ArrayList<>();
      for (ClusteredCache<String, String> n : nodes) {
        for (int k = 0; k < ENTRIES; k++) {
          String v = n.get("k" + k);
          if (!("v" + k).equals(v)) {
            missing.add(n.nodeName() + ":k" + k + "=" + v);
          }
        }
      }
      assertEquals(
          0,
          missing.size(),
          "entries written before the joins not read back: "
              + missing.size()
              + ", e.g. "
              + missing.subList(0, Math.min(5, missing.size())));
      for (ClusteredCache<String, String> n : nodes) {
        assertEquals(
            0, n.rebalanceStats().segmentsLost(), n.nodeName() + " started segments empty");
      }
      // a copy kept for the new owners is dropped once they all hold the segment
      for (ClusteredCache<String, String> n : nodes) {
        await(
            () -> n.localEntryCount() == ownedHere(n),
            n.nodeName() + " holding only the entries it owns");
      }
    } finally {
      for (ClusteredCache<String, String> n : nodes) {
        n.close();
      }
    }
  }

  private static long ownedHere(ClusteredCache<String, String> n) {
    long owned = 0;
    for (int k = 0; k < ENTRIES; k++) {
      owned += n.isLocalOwner("k" + k) ? 1 : 0;
    }
    return owned;
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }
}
