package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import dev.larder.codec.ValueDictionary.Mode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The value dictionary replicated across members: ids mean the same value everywhere. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DictionaryReplicationTest {

  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  private final String name =
      "dict-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
  private final List<ClusteredCache<String, String>> nodes = new ArrayList<>();
  private final List<ValueDictionary> dictionaries = new ArrayList<>();

  private ClusteredCache<String, String> add(Mode mode) {
    return add(mode, ClusterMode.DISTRIBUTED);
  }

  private ClusteredCache<String, String> add(Mode mode, ClusterMode clusterMode) {
    ValueDictionary d = ValueDictionary.builder().build();
    Codec<String> values = d.substitute("v", Codecs.strings(), mode);
    ClusteredCache<String, String> node =
        ClusteredCache.builder(Codecs.strings(), values)
            .dictionary(d)
            .cluster(
                ClusterConfig.builder()
                    .stack(Stacks.IN_PROCESS)
                    .clusterName(name)
                    .nodeName("n" + nodes.size())
                    .mode(clusterMode)
                    .owners(2)
                    .timeout(Duration.ofSeconds(10))
                    .segments(64)
                    .build())
            .build();
    nodes.add(node);
    dictionaries.add(d);
    return node;
  }

  private void awaitMembers(int n) {
    InProcessCluster.await(
        () ->
            nodes.stream().filter(c -> !closed.contains(c)).allMatch(c -> c.members().size() == n),
        n + " members");
    for (ClusteredCache<String, String> c : nodes) {
      if (!closed.contains(c)) {
        assertTrue(c.awaitRebalanced(Duration.ofSeconds(20)));
      }
    }
  }

  private final List<ClusteredCache<String, String>> closed = new ArrayList<>();

  @AfterEach
  void closeAll() {
    nodes.forEach(ClusteredCache::close);
  }

  /**
   * An owner that receives a write before the dictionary addition it names (here the coordinator's
   * multicast of the addition is dropped) catches up before it applies and acknowledges it: every
   * owner knows the ids of every write it acknowledged, so a partition cannot leave a side holding
   * bytes whose ids it does not know (cluster.md, "A write's dictionary ids").
   */
  @Test
  void ownersKnowTheIdsOfEveryWriteTheyAcknowledge() throws Exception {
    for (int i = 0; i < 3; i++) {
      add(Mode.ALWAYS, ClusterMode.REPLICATED);
    }
    awaitMembers(3);
    DISCARD drop = new DISCARD();
    InProcessCluster.channel(nodes.get(0))
        .getProtocolStack()
        .insertProtocol(drop, ProtocolStack.Position.ABOVE, TP.class);
    for (int i = 0; i < 5; i++) {
      drop.dropDownMulticasts(1); // the coordinator's next multicast: this value's addition
      nodes.get(1).put("k" + i, "value-" + i);
      for (int m = 0; m < 3; m++) {
        assertTrue(
            dictionaries.get(m).size("v") >= i + 1,
            "n" + m + " acknowledged value-" + i + " without knowing its id");
      }
    }
    for (int m = 0; m < 3; m++) {
      for (int i = 0; i < 5; i++) {
        assertEquals("value-" + i, nodes.get(m).get("k" + i));
      }
    }
  }

  /** Every live member's dictionary ends up with the same content, byte for byte. */
  private void assertSameDictionaries(int expectedSize) {
    List<ValueDictionary> live = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      if (!closed.contains(nodes.get(i))) {
        live.add(dictionaries.get(i));
      }
    }
    InProcessCluster.await(
        () -> live.stream().allMatch(d -> d.size() == expectedSize),
        "every dictionary holds "
            + expectedSize
            + " values: "
            + live.stream().map(ValueDictionary::size).toList());
    byte[] first = live.get(0).snapshot();
    for (ValueDictionary d : live) {
      assertArrayEquals(first, d.snapshot(), "dictionaries differ");
    }
  }

  @Test
  void concurrentWritersOnEveryMemberAgreeOnIdsAndAJoinerAndANewCoordinatorFollow()
      throws Exception {
    for (int i = 0; i < 3; i++) {
      add(Mode.ALWAYS);
    }
    awaitMembers(3);
    int distinct = 60;
    Map<String, String> written = new ConcurrentHashMap<>();
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int m = 0; m < 3; m++) {
      for (int t = 0; t < 4; t++) {
        ClusteredCache<String, String> node = nodes.get(m);
        String prefix = "m" + m + "t" + t + "-";
        int seed = m * 4 + t;
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        for (int n = 0; n < 100; n++) {
                          String v = "value-" + ((n * 7 + seed * 13) % distinct);
                          node.put(prefix + n, v);
                          written.put(prefix + n, v);
                        }
                      } catch (Throwable e) {
                        errors.add(e);
                      }
                    }));
      }
    }
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(60));
    }
    assertTrue(errors.isEmpty(), () -> "writers failed: " + errors);
    assertEquals(1200, written.size());
    assertSameDictionaries(distinct);
    for (ClusteredCache<String, String> node : nodes) {
      for (Map.Entry<String, String> e : written.entrySet()) {
        assertEquals(e.getValue(), node.get(e.getKey()), node.nodeName() + " " + e.getKey());
      }
    }

    // a joiner starts with an empty dictionary and catches up as it meets ids
    ClusteredCache<String, String> joiner = add(Mode.ALWAYS);
    awaitMembers(4);
    for (Map.Entry<String, String> e : written.entrySet()) {
      assertEquals(e.getValue(), joiner.get(e.getKey()), "joiner " + e.getKey());
    }
    // the coordinator leaves: the next one takes over, and new values still agree everywhere
    nodes.get(0).close();
    closed.add(nodes.get(0));
    awaitMembers(3);
    for (int n = 0; n < 40; n++) {
      nodes.get(1 + n % 3).put("after-" + n, "new-" + (n % 20));
    }
    assertSameDictionaries(distinct + 20);
    for (int i = 1; i < 4; i++) {
      for (int n = 0; n < 40; n++) {
        assertEquals("new-" + (n % 20), nodes.get(i).get("after-" + n));
      }
    }
    assertTrue(
        nodes.get(1).memoryUsed() >= dictionaries.get(1).memoryUsed(),
        "the dictionary counts in memoryUsed");
  }

  @Test
  void conditionalWritesMatchAValueStoredInlineAndLaterAsAnId() {
    for (int i = 0; i < 3; i++) {
      add(Mode.ADAPTIVE);
    }
    awaitMembers(3);
    ClusteredCache<String, String> n1 = nodes.get(1);
    n1.put("k", "fresh");
    // "fresh" was written inline (first sight); now it encodes as an id
    assertTrue(n1.replace("k", "fresh", "next"));
    assertEquals("next", nodes.get(2).get("k"));
    n1.put("k2", "other");
    assertTrue(n1.remove("k2", "other"));
    assertEquals(null, nodes.get(0).get("k2"));
  }

  @Test
  void aDictionaryMustBeEmptyWhenTheCacheIsBuilt() {
    ValueDictionary d = ValueDictionary.builder().build();
    Codec<String> values = d.substitute("v", Codecs.strings(), Mode.ALWAYS);
    values.encodeLast("x", new dev.larder.codec.ByteSink());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            ClusteredCache.builder(Codecs.strings(), values)
                .dictionary(d)
                .cluster(ClusterConfig.builder().stack(Stacks.IN_PROCESS).clusterName(name).build())
                .build());
  }
}
