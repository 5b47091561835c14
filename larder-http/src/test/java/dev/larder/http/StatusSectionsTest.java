package dev.larder.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusterStatus;
import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.Stacks;
import dev.larder.codec.Codecs;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.LogStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log and cluster sections as an application wires them (larder-http knows neither module: each
 * gives its figures as a map, registered with {@link CacheDirectory#section}): {@code /api/caches}
 * reports what {@link LogStatus} and {@link ClusterStatus} read, and follows commits, checkpoints
 * and membership.
 */
@Timeout(120)
class StatusSectionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void logSectionFollowsCommitsAndCheckpoints(@TempDir Path dir) throws Exception {
    TxCacheSpec<String, String> spec =
        TxCacheSpec.of("accounts", Codecs.strings(), Codecs.strings());
    try (TxStore store =
            TxStore.builder().cache(spec).persistence(dir).fsync(FsyncPolicy.always()).build();
        Fixture f = Fixture.start()) {
      f.directory.section("log", () -> store.logStatus().orElseThrow().figures());
      TxCache<String, String> accounts = store.cache(spec);
      for (int i = 0; i < 20; i++) {
        accounts.put("a" + i, "v" + i);
      }
      JsonNode log = section(f, "log");
      LogStatus status = store.logStatus().orElseThrow();
      assertEquals(dir.toString(), log.get("directory").asText());
      assertEquals("always", log.get("fsync").asText());
      assertEquals(status.lastSequence(), log.get("lastSequence").asLong());
      assertTrue(status.lastSequence() >= 20, "20 commits logged");
      assertEquals(status.stats().records(), log.get("records").asLong());
      assertEquals(status.stats().forces(), log.get("forces").asLong());
      assertTrue(log.get("commitsPerForce").asDouble() >= 1.0, log.toString());
      assertEquals("none", log.get("lastCheckpoint").asText());
      assertEquals(0, log.get("checkpoints").asLong());

      long checkpointed = store.checkpoint();
      accounts.put("after", "checkpoint");
      log = section(f, "log");
      assertEquals(checkpointed, log.get("lastCheckpoint").asLong());
      assertEquals(1, log.get("checkpoints").asLong());
      assertEquals(
          store.logStatus().orElseThrow().lastSequence(), log.get("lastSequence").asLong());
      assertTrue(log.get("lastSequence").asLong() > checkpointed);
    }
  }

  @Test
  void clusterSectionShowsMembersViewAndRebalance() throws Exception {
    String name = "status-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    try (ClusteredCache<String, String> a = node(name, "a");
        Fixture f = Fixture.start()) {
      f.directory.section("cluster", () -> ClusterStatus.of(a).figures());
      JsonNode cluster = section(f, "cluster");
      assertEquals(name, cluster.get("cluster").asText());
      assertEquals("a", cluster.get("node").asText());
      assertEquals(1, cluster.get("memberCount").asInt());
      assertEquals("DISTRIBUTED", cluster.get("mode").asText());
      assertEquals(2, cluster.get("owners").asInt());
      long firstView = cluster.get("viewId").asLong();
      assertTrue(firstView >= 0, cluster.toString());

      try (ClusteredCache<String, String> b = node(name, "b")) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (a.members().size() < 2 && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        assertTrue(a.awaitRebalanced(Duration.ofSeconds(60)));
        assertTrue(b.awaitRebalanced(Duration.ofSeconds(60)));
        for (int i = 0; i < 100; i++) {
          a.put("k" + i, "v" + i);
        }
        cluster = section(f, "cluster");
        assertEquals(2, cluster.get("memberCount").asInt());
        assertEquals(String.join(", ", a.members()), cluster.get("members").asText());
        assertTrue(cluster.get("viewId").asLong() > firstView, cluster.toString());
        assertEquals(a.ownedSegments(), cluster.get("ownedSegments").asInt());
        // Two members, two owners: each holds every entry.
        assertEquals(100, cluster.get("localEntries").asLong());
        assertEquals("idle", cluster.get("rebalance").asText());
        assertEquals(List.of("a", "b"), List.of(a.members().toArray(String[]::new)));
      }
    }
  }

  private static ClusteredCache<String, String> node(String cluster, String node) {
    return ClusteredCache.builder(String.class, String.class)
        .cluster(
            ClusterConfig.builder()
                .stack(Stacks.IN_PROCESS)
                .clusterName(cluster)
                .nodeName(node)
                .mode(ClusterMode.DISTRIBUTED)
                .owners(2)
                .timeout(Duration.ofSeconds(10))
                .segments(16)
                .build())
        .build();
  }

  private static JsonNode section(Fixture f, String name) throws Exception {
    var reply = f.get("/api/caches");
    assertEquals(200, reply.statusCode(), reply.body());
    JsonNode section = JSON.readTree(reply.body()).get("sections").get(name);
    assertTrue(section != null && !section.has("error"), reply.body());
    return section;
  }
}
