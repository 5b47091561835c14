package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link ClusterConfig.Builder#initialClusterSize}: a new member's cache is handed out only once
 * its view holds that many members, so that a member which founded a cluster of its own (it did not
 * find the running one in time) takes no writes that the merge would then drop.
 */
class InitialClusterSizeTest {

  private static ClusteredCache<String, String> member(
      String cluster, String name, int size, Duration wait) {
    return ClusteredCache.builder(String.class, String.class)
        .cluster(
            ClusterConfig.builder()
                .stack(Stacks.IN_PROCESS)
                .clusterName(cluster)
                .nodeName(name)
                .mode(ClusterMode.REPLICATED)
                .timeout(Duration.ofSeconds(5))
                .segments(16)
                .initialClusterSize(size)
                .initialClusterTimeout(wait)
                .build())
        .build();
  }

  private static String clusterName() {
    return "initial-size-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
  }

  @Test
  void aMemberIsHandedOutOnlyOnceItsViewHoldsTheInitialSize() throws Exception {
    // JGroups' first channel in a JVM takes seconds to start: start one first, so that a lone
    // member is built within the window below when nothing makes it wait
    member(clusterName(), "warm-up", 1, Duration.ofSeconds(30)).close();
    String cluster = clusterName();
    AtomicInteger membersWhenHandedOut = new AtomicInteger();
    CompletableFuture<ClusteredCache<String, String>> first =
        CompletableFuture.supplyAsync(
            () -> {
              ClusteredCache<String, String> c =
                  member(cluster, "first", 2, Duration.ofSeconds(30));
              membersWhenHandedOut.set(c.members().size());
              return c;
            });
    // alone, it is not handed out (it would be within this time without the wait: the
    // in-process stack's join timeout is 300 ms)
    assertThrows(TimeoutException.class, () -> first.get(3, TimeUnit.SECONDS));
    try (ClusteredCache<String, String> second =
            member(cluster, "second", 2, Duration.ofSeconds(30));
        ClusteredCache<String, String> firstCache = first.get(30, TimeUnit.SECONDS)) {
      assertEquals(2, membersWhenHandedOut.get(), "the first member's view when it was built");
      assertEquals(2, second.members().size());
      firstCache.put("k", "v");
      assertEquals("v", second.getIfPresent("k"));
    }
  }

  @Test
  void aMemberThatDoesNotSeeTheInitialSizeInTimeFailsToBuildAndSaysWhy() {
    String cluster = clusterName();
    long start = System.nanoTime();
    ClusterException e =
        assertThrows(
            ClusterException.class, () -> member(cluster, "alone", 3, Duration.ofMillis(400)));
    assertTrue(e.getMessage().contains("1 of the 3 members"), e.getMessage());
    assertTrue(
        System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(400), "it waited the timeout");
    // it left: a member built now in the same cluster is alone
    try (ClusteredCache<String, String> next = member(cluster, "next", 1, Duration.ofSeconds(1))) {
      assertEquals(1, next.members().size());
    }
  }

  @Test
  void badSettingsAreRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> ClusterConfig.builder().initialClusterSize(0).build());
    assertThrows(
        IllegalArgumentException.class,
        () -> ClusterConfig.builder().initialClusterTimeout(Duration.ZERO).build());
    assertThrows(
        NullPointerException.class,
        () -> ClusterConfig.builder().initialClusterTimeout(null).build());
  }
}
