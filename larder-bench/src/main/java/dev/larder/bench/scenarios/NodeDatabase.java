package dev.larder.bench.scenarios;

import dev.larder.model.Node;
import dev.larder.model.NodeGenerator;
import java.util.concurrent.locks.LockSupport;

/**
 * The simulated database of the memory scenario: node {@code id} is the content-node memory test's
 * generated node, freshly allocated on every load (as a driver decoding a row allocates), after an
 * optional per-node latency. Thread-safe.
 */
final class NodeDatabase {

  /** The generator seed every run uses, so that all implementations store the same nodes. */
  static final long SEED = 42;

  private final NodeGenerator generator = new NodeGenerator(SEED);
  private final long latencyNanos;

  NodeDatabase(long latencyNanos) {
    this.latencyNanos = latencyNanos;
  }

  Node load(long id) {
    if (latencyNanos > 0) {
      LockSupport.parkNanos(latencyNanos);
    }
    return generator.node(id);
  }
}
