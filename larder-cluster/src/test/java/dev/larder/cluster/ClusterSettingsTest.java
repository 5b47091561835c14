package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member whose cluster settings differ from the running members' is refused at join, saying so,
 * instead of joining and placing or reading keys differently from the others.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterSettingsTest {

  private final String cluster =
      "settings-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
  private final List<ClusteredCache<String, String>> nodes = new ArrayList<>();

  @AfterEach
  void closeAll() {
    nodes.forEach(ClusteredCache::close);
  }

  private ClusterConfig.Builder base(String node) {
    return ClusterConfig.builder()
        .stack(Stacks.IN_PROCESS)
        .clusterName(cluster)
        .nodeName(node)
        .mode(ClusterMode.DISTRIBUTED)
        .owners(2)
        .segments(64)
        .timeout(Duration.ofSeconds(5));
  }

  private ClusteredCache<String, String> start(
      String node,
      UnaryOperator<ClusterConfig.Builder> config,
      UnaryOperator<ClusteredCacheBuilder<String, String>> cache) {
    ClusteredCache<String, String> c =
        cache
            .apply(ClusteredCache.builder(String.class, String.class))
            .cluster(config.apply(base(node)).build())
            .build();
    nodes.add(c);
    return c;
  }

  @Test
  void aJoinerWithOtherSettingsIsRefusedAndOneWithTheSameJoins() {
    ClusteredCache<String, String> first = start("first", b -> b, c -> c);
    first.put("k", "v");

    record Case(
        String differs,
        UnaryOperator<ClusterConfig.Builder> config,
        UnaryOperator<ClusteredCacheBuilder<String, String>> cache) {}
    List<Case> cases =
        List.of(
            new Case("segments 32", b -> b.segments(32), c -> c),
            new Case("owners 3", b -> b.owners(3), c -> c),
            new Case("mode REPLICATED", b -> b.mode(ClusterMode.REPLICATED), c -> c),
            new Case("replication ASYNC", b -> b.replication(Replication.ASYNC), c -> c),
            new Case(
                "expireAfterWrite 60000 ms",
                b -> b,
                c -> c.expireAfterWrite(Duration.ofMinutes(1))),
            new Case(
                "dictionary spaces [v]",
                b -> b,
                c -> {
                  ValueDictionary d = ValueDictionary.builder().build();
                  d.substitute("v", Codecs.strings(), ValueDictionary.Mode.ALWAYS);
                  return c.dictionary(d);
                }));
    for (Case k : cases) {
      ClusterException e =
          assertThrows(
              ClusterException.class, () -> start("other", k.config(), k.cache()), k.differs());
      assertTrue(
          e.getMessage().contains("refused this member") && e.getMessage().contains(k.differs()),
          k.differs() + ": " + e.getMessage());
    }
    assertEquals(1, first.members().size(), "no refused member entered the view");

    ClusteredCache<String, String> same = start("same", b -> b, c -> c);
    assertEquals(2, same.members().size());
    assertEquals("v", same.get("k"));
  }
}
