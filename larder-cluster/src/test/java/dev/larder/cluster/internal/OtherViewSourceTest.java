package dev.larder.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.Stacks;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.junit.jupiter.api.Test;

/**
 * A state-transfer source in another view than the pull's. Views do not change on every member at
 * once: a source may already be in the next view (or not yet in the pull's) when a pull arrives. It
 * must say so, and the puller must ask it again, not pass over it: a puller that ran out of
 * candidates marked the segments lost (owned, empty) while the source held them, and the CI kill
 * trial of d856a9b lost 546 acknowledged writes that way.
 *
 * <p>The other side of each exchange is a bare JGroups channel in the same in-process cluster,
 * speaking the wire format, so that the answer can be chosen.
 */
class OtherViewSourceTest {

  private static final int SEGMENTS = 64;

  private static JChannel bareChannel() throws Exception {
    try (InputStream stack = ClusterEngine.class.getResourceAsStream("/" + Stacks.IN_PROCESS)) {
      assertNotNull(stack, "the in-process stack resource");
      return new JChannel(stack);
    }
  }

  private static ClusterConfig config(String cluster, Duration timeout) {
    return ClusterConfig.builder()
        .stack(Stacks.IN_PROCESS)
        .clusterName(cluster)
        .nodeName("member")
        .mode(ClusterMode.REPLICATED)
        .timeout(timeout)
        .segments(SEGMENTS)
        .build();
  }

  private static ClusteredCache<String, String> member(String cluster, Duration timeout) {
    return ClusteredCache.builder(String.class, String.class)
        .cluster(config(cluster, timeout))
        .build();
  }

  private static String clusterName(String what) {
    return what + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
  }

  @Test
  void aPullerAsksASourceInAnotherViewAgainInsteadOfMarkingItsSegmentsLost() throws Exception {
    String cluster = clusterName("other-view-puller");
    AtomicInteger pulls = new AtomicInteger();
    try (JChannel source = bareChannel()) {
      source.setReceiver(
          new Receiver() {
            @Override
            public void receive(Message msg) {
              Frame f = Frame.decode(msg.getArray(), msg.getOffset(), msg.getLength());
              if (f.type() != Frame.T_PULL) {
                return;
              }
              // the first two answers: "in another view, nothing served"; then every segment,
              // served (the cache is empty, so no entries)
              boolean otherView = pulls.incrementAndGet() <= 2;
              Frame last =
                  new Frame(
                      Frame.T_STATE,
                      f.reqId(),
                      f.viewId(),
                      0,
                      Frame.F_LAST | (otherView ? Frame.F_OTHER_VIEW : 0),
                      null,
                      null,
                      null,
                      otherView ? f.ints() : Frame.NO_INTS,
                      List.of(),
                      List.of());
              try {
                source.send(new BytesMessage(msg.getSrc(), last.encode()));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            }
          });
      source.connect(cluster);
      // the member joins second: every segment is incoming, and the bare channel, the oldest
      // member, is its only candidate source
      try (ClusteredCache<String, String> joiner = member(cluster, Duration.ofSeconds(5))) {
        assertTrue(joiner.awaitRebalanced(Duration.ofSeconds(20)), "the joiner finished");
        assertEquals(0, joiner.rebalanceStats().segmentsLost(), "segments marked lost");
        assertEquals(SEGMENTS, joiner.rebalanceStats().segmentsReceived());
        assertEquals(3, pulls.get(), "pulls the source answered");
      }
    }
  }

  @Test
  void aSourceSaysWhenAPullIsForAnotherView() throws Exception {
    String cluster = clusterName("other-view-source");
    BlockingQueue<Frame> answers = new LinkedBlockingQueue<>();
    // a short timeout: a source waits that long for a pull's view before answering
    try (ClusteredCache<String, String> source = member(cluster, Duration.ofMillis(300));
        JChannel puller = bareChannel()) {
      puller.setReceiver(
          new Receiver() {
            @Override
            public void receive(Message msg) {
              Frame f = Frame.decode(msg.getArray(), msg.getOffset(), msg.getLength());
              if (f.type() == Frame.T_STATE) {
                answers.add(f);
              }
            }
          });
      // the member, coordinator, admits only joiners with its settings
      SettingsToken.install(
          puller,
          SettingsToken.describe(config(cluster, Duration.ofMillis(300)), EngineHooks.NONE));
      puller.connect(cluster);
      assertTrue(source.awaitRebalanced(Duration.ofSeconds(20)));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (source.members().size() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      Address to = puller.getView().getMembers().get(0);
      long view = puller.getView().getViewId().getId();
      int[] segments = {0, 5};

      puller.send(new BytesMessage(to, pull(1, view + 1, segments).encode()));
      Frame ahead = answers.poll(20, TimeUnit.SECONDS);
      assertNotNull(ahead, "an answer to a pull for a view the source does not have");
      assertEquals(Frame.F_LAST | Frame.F_OTHER_VIEW, ahead.flags());
      assertArrayEquals(segments, ahead.ints());

      puller.send(new BytesMessage(to, pull(2, view, segments).encode()));
      Frame same = answers.poll(20, TimeUnit.SECONDS);
      assertNotNull(same, "an answer to a pull for the source's view");
      assertEquals(Frame.F_LAST, same.flags());
      assertArrayEquals(Frame.NO_INTS, same.ints(), "both segments served");
    }
  }

  private static Frame pull(long reqId, long viewId, int[] segments) {
    return new Frame(
        Frame.T_PULL, reqId, viewId, 0, 0, null, null, null, segments, List.of(), List.of());
  }
}
