package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.Stacks;
import dev.larder.codec.Codecs;
import dev.larder.history.Anomaly;
import dev.larder.history.CheckResult;
import dev.larder.history.HistoryChecker;
import dev.larder.history.Outcome;
import dev.larder.history.Txn;
import dev.larder.tx.Isolation;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import dev.larder.tx.spi.TxStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * Concurrent list-append and register transactions on three in-process members, checked by the
 * history checker: none of its anomalies under SERIALIZABLE (process order included: each client
 * stays on one member); under SNAPSHOT, only G2.
 */
@Timeout(300)
class ClusteredTxHistoryTest {

  static final TxCacheSpec<String, String> LISTS =
      TxCacheSpec.of("lists", Codecs.strings(), Codecs.strings());
  static final TxCacheSpec<String, Long> REGISTERS =
      TxCacheSpec.of("registers", Codecs.strings(), Codecs.longs());
  private static final int MEMBERS = 3;
  private static final int CLIENTS_PER_MEMBER = 2;
  private static final int TRANSACTIONS = 150;

  /** Each level, REPLICATED and DISTRIBUTED with two owners of three. */
  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> levelsAndModes() {
    return java.util.stream.Stream.of(Isolation.values())
        .flatMap(
            l ->
                java.util.stream.Stream.of(ClusterMode.REPLICATED, ClusterMode.DISTRIBUTED)
                    .map(m -> org.junit.jupiter.params.provider.Arguments.of(l, m)));
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("levelsAndModes")
  void historyHasOnlyTheAnomaliesTheLevelAllows(Isolation level, ClusterMode mode)
      throws Exception {
    String cluster = "txh-" + ProcessHandle.current().pid() + "-" + level + "-" + mode;
    List<TxStore> stores = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(MEMBERS * CLIENTS_PER_MEMBER);
    try {
      List<Future<TxStore>> starting = new ArrayList<>();
      for (int i = 0; i < MEMBERS; i++) {
        int n = i;
        starting.add(
            pool.submit(
                () ->
                    TxStores.open(
                        List.of(LISTS, REGISTERS),
                        ClusterTxEngine.start(
                            ClusterConfig.builder()
                                .stack(Stacks.IN_PROCESS)
                                .clusterName(cluster)
                                .nodeName("h" + n)
                                .timeout(Duration.ofSeconds(5))
                                .mode(mode)
                                .owners(2)
                                .initialClusterSize(MEMBERS)
                                .build(),
                            List.of(LISTS, REGISTERS),
                            level,
                            MEMBERS,
                            null,
                            Duration.ZERO))));
      }
      for (Future<TxStore> f : starting) {
        stores.add(f.get(60, TimeUnit.SECONDS));
      }
      HistoryRecorder recorder = new HistoryRecorder(6);
      List<Future<?>> clients = new ArrayList<>();
      for (int p = 0; p < MEMBERS * CLIENTS_PER_MEMBER; p++) {
        int process = p;
        TxStore store = stores.get(p % MEMBERS);
        clients.add(
            pool.submit(
                () -> {
                  Random random = new Random(process);
                  for (int i = 0; i < TRANSACTIONS; i++) {
                    recorder.runOne(
                        process, store, store.cache(LISTS), store.cache(REGISTERS), random);
                  }
                  return null;
                }));
      }
      for (Future<?> f : clients) {
        f.get(240, TimeUnit.SECONDS);
      }
      List<Txn> history = recorder.history();
      CheckResult result = HistoryChecker.check(history, HistoryChecker.Orders.PROCESS);
      long committed = history.stream().filter(t -> t.outcome() == Outcome.COMMITTED).count();
      assertTrue(
          committed > history.size() / 4,
          "too few commits to say much: " + committed + " of " + history.size());
      List<Anomaly> forbidden =
          level == Isolation.SERIALIZABLE
              ? result.anomalies()
              : result.anomalies().stream().filter(a -> !a.name().startsWith("G2")).toList();
      assertTrue(forbidden.isEmpty(), level + ": " + result + "\n" + forbidden);
      System.out.println(level + ": " + committed + " committed; " + result);
    } finally {
      pool.shutdownNow();
      stores.forEach(TxStore::close);
    }
  }
}
