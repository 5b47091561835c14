package dev.larder.server.internal.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Both parsers and handlers under 100,000 random and mutated inputs each (200,000 in all): no
 * exception, bounded buffering and replies, no hang (the timeout). {@code ./larder bench fuzz} runs
 * 10 million per protocol.
 */
class ProtocolFuzzTest {
  private static final int INPUTS = 100_000;

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void respSurvivesRandomAndMutatedInput() {
    check(ProtocolFuzzer.Protocol.RESP, 11);
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void memcacheSurvivesRandomAndMutatedInput() {
    check(ProtocolFuzzer.Protocol.MEMCACHE, 12);
  }

  private static void check(ProtocolFuzzer.Protocol protocol, long seed) {
    try (ProtocolFuzzer fuzzer = new ProtocolFuzzer(protocol, seed)) {
      ProtocolFuzzer.Report r = fuzzer.run(INPUTS);
      assertEquals(INPUTS, r.inputs());
      assertTrue(r.closes() > 0, "some inputs are bad enough to close their connection");
      assertTrue(r.maxBuffered() <= ProtocolFuzzer.MAX_REQUEST + 128 * 1024);
    }
  }
}
