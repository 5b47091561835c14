package dev.larder.bench.peer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.model.Node;
import dev.larder.model.NodeCodecs;
import dev.larder.model.NodeGenerator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every implementation, configured as the scenarios configure it, stores and returns what it was
 * given, and honours (or refuses) a bound. A peer's configuration that stopped working on this JVM
 * fails here rather than in the middle of a benchmark run.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PeersTest {

  static Stream<Peer> peers() {
    return Peers.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("peers")
  void storesAndReturnsByteValuesUnderStringKeys(Peer peer) throws Exception {
    CacheSpec<String, byte[]> spec =
        new CacheSpec<>(String.class, byte[].class, Codecs.bytes(), 0, 0, 200, 10, 100);
    try (BenchCache<String, byte[]> cache = peer.create(spec)) {
      for (int i = 0; i < 200; i++) {
        cache.put("key-" + i, value(i));
      }
      assertEquals(200, cache.size());
      for (int i = 0; i < 200; i++) {
        assertArrayEquals(value(i), cache.get("key-" + i), peer.name() + " key " + i);
      }
      assertNull(cache.get("absent"));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("peers")
  void storesContentNodesUnderLongKeys(Peer peer) throws Exception {
    NodeGenerator generator = new NodeGenerator(1);
    CacheSpec<Long, Node> spec =
        new CacheSpec<>(Long.class, Node.class, NodeCodecs.node(), 0, 0, 50, 8, 600);
    try (BenchCache<Long, Node> cache = peer.create(spec)) {
      for (long id = 0; id < 50; id++) {
        cache.put(id, generator.node(id));
      }
      for (long id = 0; id < 50; id++) {
        assertEquals(generator.node(id), cache.get(id), peer.name() + " node " + id);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("peers")
  void boundedCachesEvictOrSayTheyCannot(Peer peer) throws Exception {
    CacheSpec<String, byte[]> spec =
        new CacheSpec<>(String.class, byte[].class, Codecs.bytes(), 1_000, 0, 1_000, 10, 1024);
    if (peer.name().equals("ChronicleMap")) {
      assertThrows(PeerUnavailableException.class, () -> peer.create(spec));
      return;
    }
    try (BenchCache<String, byte[]> cache = peer.create(spec)) {
      for (int i = 0; i < 10_000; i++) {
        cache.put("key-" + i, new byte[1024]);
      }
      if (peer.name().equals("ConcurrentHashMap")) {
        assertEquals(10_000, cache.size());
      } else {
        // Eviction may lag a little (Caffeine, Larder maintain asynchronously) and byte-bounded
        // stores round their pools; still far below the 10,000 entries put.
        assertTrue(cache.size() < 2_500, peer.name() + " holds " + cache.size());
      }
    }
  }

  @Test
  void everyNameIsUniqueAndFindable() {
    assertEquals(Peers.all().size(), Peers.names().stream().distinct().count());
    for (String name : Peers.names()) {
      assertEquals(name, Peers.named(name).orElseThrow().name());
    }
  }

  private static byte[] value(int i) {
    byte[] b = new byte[100];
    for (int j = 0; j < b.length; j++) {
      b[j] = (byte) (i * 31 + j);
    }
    return b;
  }
}
