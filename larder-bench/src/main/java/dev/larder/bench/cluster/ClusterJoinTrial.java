package dev.larder.bench.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The join part of {@code ./larder bench cluster}: {@code nodes} member JVMs of a REPLICATED sync
 * cache on loopback hold {@code entries} values of {@code valueSize} bytes (each member loads a
 * share with {@code threads} threads), so that every member holds all of them; each member's memory
 * per entry is read at that scale; then a new member joins, and the time from the start of its
 * cache to holding every entry is measured. In REPLICATED mode the joiner's share is the whole
 * state, so the bytes it receives are the bytes loaded.
 */
final class ClusterJoinTrial {

  /**
   * @param loadMillis time the members took to load the entries
   * @param bytesPerEntry each member's memory growth over the entries it holds
   * @param joinMillis the joiner's time from starting its cache to holding its share
   * @param joinEntries entries the joiner holds after joining
   * @param joinBytes bytes of key and value the joiner holds after joining
   * @param transferMillis the state transfer's own time, as the joiner reports it (0: not reported)
   * @param joinerBytesPerEntry the joiner's memory growth over the entries it holds
   * @param cpuNanos CPU time of the join: the joiner JVM's CPU time from just before it starts its
   *     cache until it holds its share, plus the other members' CPU time meanwhile
   */
  record Result(
      long loadMillis,
      List<Double> bytesPerEntry,
      long joinMillis,
      long joinEntries,
      long joinBytes,
      long transferMillis,
      double joinerBytesPerEntry,
      long cpuNanos) {

    /** Returns the joiner's received bytes over its join time, in MiB/s. */
    double megabytesPerSecond() {
      return joinMillis == 0 ? 0 : joinBytes / 1048576.0 / (joinMillis / 1000.0);
    }

    /** Returns the joiner's received bytes over the CPU time of the join, in MiB per CPU second. */
    double megabytesPerCpuSecond() {
      return cpuNanos == 0 ? 0 : joinBytes / 1048576.0 / (cpuNanos / 1e9);
    }
  }

  private final String implementation;
  private final int nodes;
  private final int entries;
  private final int valueSize;
  private final int threads;
  private final String heap;
  private final Consumer<String> progress;

  ClusterJoinTrial(
      String implementation,
      int nodes,
      int entries,
      int valueSize,
      int threads,
      String heap,
      Consumer<String> progress) {
    this.implementation = implementation;
    this.nodes = nodes;
    this.entries = entries;
    this.valueSize = valueSize;
    this.threads = threads;
    this.heap = heap;
    this.progress = progress;
  }

  Result run() throws Exception {
    String port = String.valueOf(21000 + new Random().nextInt(20000));
    String cluster = "join-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    String shape = ClusterSubject.Shape.REPL_SYNC.name();
    List<MemberProcess> members = new ArrayList<>();
    try {
      for (int i = 0; i < nodes; i++) {
        members.add(
            MemberProcess.start(
                heap, ClusterBenchNode.class, implementation, shape, port, cluster, "m" + i));
      }
      MemberProcess.awaitMembers(members, nodes);
      for (MemberProcess m : members) {
        m.ask("rebalanced", 600);
      }
      progress.accept(
          implementation + " join: loading " + entries + " entries of " + valueSize + " B");
      long loadStart = System.nanoTime();
      for (int i = 0; i < nodes; i++) {
        members
            .get(i)
            .send(
                "fill "
                    + (long) entries * i / nodes
                    + " "
                    + (long) entries * (i + 1) / nodes
                    + " "
                    + valueSize
                    + " "
                    + threads);
      }
      for (MemberProcess m : members) {
        m.answer(3600);
      }
      long loadMillis = (System.nanoTime() - loadStart) / 1_000_000;
      List<Double> bytesPerEntry = new ArrayList<>();
      for (MemberProcess m : members) {
        bytesPerEntry.add(perEntry(m.ask("memory", 600)));
      }
      progress.accept(implementation + " join: a member joins and receives the state");
      long membersCpu = 0;
      for (MemberProcess m : members) {
        membersCpu -= Long.parseLong(m.ask("cpu", 60));
      }
      MemberProcess joiner =
          MemberProcess.start(
              heap, ClusterBenchNode.class, implementation, shape, port, cluster, "joiner");
      members.add(joiner);
      long joinMillis = Long.parseLong(joiner.ask("rebalanced", 3600));
      long cpu = Long.parseLong(joiner.ask("cpu", 60)) + membersCpu;
      for (MemberProcess m : members.subList(0, nodes)) {
        cpu += Long.parseLong(m.ask("cpu", 60));
      }
      String[] transfer = joiner.ask("transfer", 60).split(" ", -1);
      String memory = joiner.ask("memory", 600);
      long held = Long.parseLong(memory.split(" ", -1)[1]);
      long keyBytes = 1L + String.valueOf(entries - 1).length();
      return new Result(
          loadMillis,
          bytesPerEntry,
          joinMillis,
          held,
          held * (valueSize + keyBytes),
          Long.parseLong(transfer[0]),
          perEntry(memory),
          cpu);
    } finally {
      for (MemberProcess m : members) {
        m.stop();
      }
    }
  }

  private static double perEntry(String memoryAnswer) {
    String[] r = memoryAnswer.split(" ", -1);
    long held = Long.parseLong(r[1]);
    return held == 0 ? 0 : Long.parseLong(r[0]) / (double) held;
  }
}
