package dev.larder.bench.scenarios;

import dev.larder.bench.peer.Peer;
import dev.larder.bench.peer.Peers;
import dev.larder.bench.scenario.RunOptions;
import java.util.List;

/** The implementations a scenario runs: Larder's storage modes first, then the peers. */
final class Subjects {

  private Subjects() {}

  /**
   * The implementations to plan: all of them that the run's filter includes, except that a quick
   * run measures Larder in its default (off-heap) storage only, to fit in minutes.
   *
   * @param options the run's options, whose filter applies
   * @return the peers to plan, in table order
   */
  static List<Peer> planned(RunOptions options) {
    return Peers.all().stream()
        .filter(p -> options.includes(p.name()))
        .filter(p -> !options.quick() || !p.name().equals("Larder-heap"))
        .toList();
  }

  /**
   * Returns every implementation the filter includes, quick or not.
   *
   * @param options the run's options, whose filter applies
   */
  static List<Peer> plannedWithEveryMode(RunOptions options) {
    return Peers.all().stream().filter(p -> options.includes(p.name())).toList();
  }

  /**
   * Returns the peer.
   *
   * @param name a name from a trial
   */
  static Peer named(String name) {
    return Peers.named(name)
        .orElseThrow(() -> new IllegalArgumentException("unknown implementation " + name));
  }
}
