package dev.larder.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.RebalanceStats;
import dev.larder.cluster.Stacks;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.MessageBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A joiner owns no segment received by state transfer before its value dictionary holds every id
 * the received entries may name (cluster.md, "A write's dictionary ids"). Here the coordinator, the
 * dictionary's reference, ignores the joiner's requests for the additions it lacks, so the joiner
 * receives every entry and cannot learn their ids: it must keep the segments incoming (not served)
 * until it can.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StateTransferDictionaryTest {

  private static final int ENTRIES = 50;
  private static final int SEGMENTS = 16;

  private final String cluster =
      "st-dict-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
  private final List<ClusteredCache<String, String>> nodes = new ArrayList<>();
  private final List<ValueDictionary> dictionaries = new ArrayList<>();

  /** Drops dictionary SYNC requests arriving at its member while {@link #dropping}. */
  static final class DropSyncRequests extends Protocol {
    volatile boolean dropping = true;
    final AtomicInteger dropped = new AtomicInteger();

    private boolean drops(Message msg) {
      if (!dropping || msg.getLength() == 0) {
        return false;
      }
      Frame f = Frame.decode(msg.getArray(), msg.getOffset(), msg.getLength());
      if (f.type() == Frame.T_DICT && f.flags() == DictionarySync.OP_SYNC) {
        dropped.incrementAndGet();
        return true;
      }
      return false;
    }

    @Override
    public Object up(Message msg) {
      return drops(msg) ? null : up_prot.up(msg);
    }

    @Override
    public void up(MessageBatch batch) {
      batch.removeIf(this::drops, true);
      if (!batch.isEmpty()) {
        up_prot.up(batch);
      }
    }
  }

  private ClusteredCache<String, String> add() {
    ValueDictionary d = ValueDictionary.builder().build();
    Codec<String> values = d.substitute("v", Codecs.strings(), ValueDictionary.Mode.ALWAYS);
    ClusteredCache<String, String> node =
        ClusteredCache.builder(Codecs.strings(), values)
            .dictionary(d)
            .cluster(
                ClusterConfig.builder()
                    .stack(Stacks.IN_PROCESS)
                    .clusterName(cluster)
                    .nodeName("n" + nodes.size())
                    .mode(ClusterMode.REPLICATED)
                    .timeout(Duration.ofSeconds(1))
                    .segments(SEGMENTS)
                    .build())
            .build();
    nodes.add(node);
    dictionaries.add(d);
    return node;
  }

  @AfterEach
  void closeAll() {
    nodes.forEach(ClusteredCache::close);
  }

  @Test
  void aJoinerOwnsReceivedSegmentsOnlyOnceItKnowsTheirDictionaryIds() throws Exception {
    ClusteredCache<String, String> coordinator = add();
    ClusteredCache<String, String> second = add();
    await(
        () -> second.members().size() == 2 && second.awaitRebalanced(Duration.ZERO),
        "two members, rebalanced");
    for (int i = 0; i < ENTRIES; i++) {
      coordinator.put("k" + i, "value-" + i);
    }
    await(() -> dictionaries.get(1).size("v") == ENTRIES, "the second member's dictionary");

    DropSyncRequests drop = new DropSyncRequests();
    ProtocolStack stack =
        ((ClusteredLarderCache<?, ?>) coordinator).engine().channel().getProtocolStack();
    stack.insertProtocol(drop, ProtocolStack.Position.ABOVE, stack.getTopProtocol().getClass());

    ClusteredCache<String, String> joiner = add();
    await(() -> joiner.rebalanceStats().entriesReceived() == ENTRIES, "the joiner's entries");
    // several of the joiner's requests for the additions go unanswered (1 s timeout each)
    await(() -> drop.dropped.get() >= 2, "the joiner asked the coordinator twice");
    RebalanceStats stats = joiner.rebalanceStats();
    assertEquals(0, dictionaries.get(2).size("v"), "the joiner learned the ids another way");
    assertEquals(
        0,
        stats.segmentsReceived(),
        "the joiner owned received segments whose dictionary ids it does not know");
    assertTrue(stats.inProgress(), "the rebalance waits for the dictionary");

    drop.dropping = false;
    assertTrue(joiner.awaitRebalanced(Duration.ofSeconds(20)), "rebalanced once answered");
    assertEquals(ENTRIES, dictionaries.get(2).size("v"));
    assertEquals(SEGMENTS, joiner.rebalanceStats().segmentsReceived());
    for (int i = 0; i < ENTRIES; i++) {
      assertEquals("value-" + i, joiner.get("k" + i));
    }
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }
}
