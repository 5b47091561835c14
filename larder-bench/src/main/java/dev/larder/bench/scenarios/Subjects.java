package dev.larder.bench.scenarios;

import dev.larder.bench.peer.Peer;
import dev.larder.bench.peer.Peers;
import dev.larder.bench.scenario.RunOptions;
import java.util.List;

/** The implementations a scenario runs: Larder's storage modes first, then the peers. */
final class Subjects {

  private Subjects() {}

  /**
   * @param options the run's options, whose filter applies
   * @return the peers to plan, in table order
   */
  static List<Peer> planned(RunOptions options) {
    return Peers.all().stream().filter(p -> options.includes(p.name())).toList();
  }

  /**
   * @param name a name from a trial
   * @return the peer
   */
  static Peer named(String name) {
    return Peers.named(name)
        .orElseThrow(() -> new IllegalArgumentException("unknown implementation " + name));
  }
}
