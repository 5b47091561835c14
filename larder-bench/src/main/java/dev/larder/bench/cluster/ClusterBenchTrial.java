package dev.larder.bench.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The replicated-cache benchmark for one implementation and shape: {@code nodes} member JVMs on
 * loopback load {@code entries} values of {@code valueSize} bytes (each a share), then every member
 * runs {@code threads} client threads doing 90% gets and 10% puts of uniform random keys for {@code
 * seconds}; then memory per entry is read on each member, and a new member joins and receives its
 * state.
 */
final class ClusterBenchTrial {

  /**
   * @param opsPerSecond aggregate over members
   * @param perNodeOps each member's ops/s
   * @param p50Micros the median of the members' median latencies
   * @param p99Micros the largest of the members' 99th percentiles
   * @param errors operations that threw
   * @param bytesPerEntry each member's memory growth over the entries it holds
   * @param joinMillis the joiner's time from starting its cache to the end of its state transfer
   * @param joinBytes bytes of key and value the joiner holds after joining
   */
  record Result(
      double opsPerSecond,
      List<Double> perNodeOps,
      long p50Micros,
      long p99Micros,
      long errors,
      List<Double> bytesPerEntry,
      long joinMillis,
      long joinBytes) {}

  private final String implementation;
  private final ClusterSubject.Shape shape;
  private final int nodes;
  private final int entries;
  private final int valueSize;
  private final int threads;
  private final int seconds;
  private final String heap;
  private final Consumer<String> progress;

  ClusterBenchTrial(
      String implementation,
      ClusterSubject.Shape shape,
      int nodes,
      int entries,
      int valueSize,
      int threads,
      int seconds,
      String heap,
      Consumer<String> progress) {
    this.implementation = implementation;
    this.shape = shape;
    this.nodes = nodes;
    this.entries = entries;
    this.valueSize = valueSize;
    this.threads = threads;
    this.seconds = seconds;
    this.heap = heap;
    this.progress = progress;
  }

  Result run() throws Exception {
    String port = String.valueOf(21000 + new Random().nextInt(20000));
    String cluster = "bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    List<MemberProcess> members = new ArrayList<>();
    try {
      for (int i = 0; i < nodes; i++) {
        members.add(
            MemberProcess.start(
                heap,
                ClusterBenchNode.class,
                implementation,
                shape.name(),
                port,
                cluster,
                "m" + i));
      }
      MemberProcess.awaitMembers(members, nodes);
      for (MemberProcess m : members) {
        m.ask("rebalanced", 600);
      }
      progress.accept(implementation + " " + shape + ": loading " + entries + " entries");
      for (int i = 0; i < nodes; i++) {
        members
            .get(i)
            .send(
                "load "
                    + (long) entries * i / nodes
                    + " "
                    + (long) entries * (i + 1) / nodes
                    + " "
                    + valueSize);
      }
      for (MemberProcess m : members) {
        m.answer(1800);
      }
      progress.accept(implementation + " " + shape + ": running " + seconds + " s");
      for (MemberProcess m : members) {
        m.send("run " + seconds + " " + threads + " " + entries + " " + valueSize);
      }
      List<Double> perNode = new ArrayList<>();
      List<Long> p50s = new ArrayList<>();
      long p99 = 0;
      long errors = 0;
      for (MemberProcess m : members) {
        String[] r = m.answer(seconds + 300).split(" ", -1);
        perNode.add(Long.parseLong(r[0]) / (double) seconds);
        p50s.add(Long.parseLong(r[1]));
        p99 = Math.max(p99, Long.parseLong(r[2]));
        errors += Long.parseLong(r[3]);
      }
      List<Double> bytesPerEntry = new ArrayList<>();
      for (MemberProcess m : members) {
        String[] r = m.ask("memory", 300).split(" ", -1);
        long held = Long.parseLong(r[1]);
        bytesPerEntry.add(held == 0 ? 0 : Long.parseLong(r[0]) / (double) held);
      }
      progress.accept(implementation + " " + shape + ": a member joins");
      MemberProcess joiner =
          MemberProcess.start(
              heap, ClusterBenchNode.class, implementation, shape.name(), port, cluster, "joiner");
      members.add(joiner);
      long joinMillis = Long.parseLong(joiner.ask("rebalanced", 1800));
      long held = Long.parseLong(joiner.ask("memory", 300).split(" ", -1)[1]);
      p50s.sort(null);
      return new Result(
          perNode.stream().mapToDouble(Double::doubleValue).sum(),
          perNode,
          p50s.get(p50s.size() / 2),
          p99,
          errors,
          bytesPerEntry,
          joinMillis,
          held * (valueSize + 8L));
    } finally {
      for (MemberProcess m : members) {
        m.stop();
      }
    }
  }

  static String join(List<Double> values) {
    return values.stream().map(v -> String.valueOf(Math.round(v))).collect(Collectors.joining("/"));
  }
}
