package dev.larder.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.ValueDictionary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Many threads encoding and decoding nodes through one shared dictionary while it is filling: every
 * encoding decodes to its node on every thread, also bytes written by other threads, and a snapshot
 * taken afterwards decodes them all in a restored dictionary.
 */
class NodeCodecConcurrencyTest {

  @Test
  void sharedDictionaryUnderConcurrentEncoders() {
    ValueDictionary dictionary = ValueDictionary.builder().maximumEntries(2_000).build();
    Codec<Node> codec = NodeCodecs.node(dictionary);
    NodeGenerator generator = new NodeGenerator(5);
    int threads = 6;
    int perThread = 1_500;
    ConcurrentHashMap<Long, byte[]> written = new ConcurrentHashMap<>();
    assertTimeoutPreemptively(
        Duration.ofMinutes(2),
        () -> {
          ExecutorService pool = Executors.newFixedThreadPool(threads);
          try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
              long base = t * (long) perThread;
              futures.add(
                  pool.submit(
                      () -> {
                        start.await();
                        ByteSink sink = new ByteSink();
                        for (long i = 0; i < perThread; i++) {
                          long id = base + i;
                          sink.reset();
                          codec.encodeLast(generator.node(id), sink);
                          byte[] bytes = sink.toByteArray();
                          written.put(id, bytes);
                          check(codec, generator, id, bytes);
                          long other = (id * 7919) % (base + i + 1);
                          byte[] theirs = written.get(other);
                          if (theirs != null) {
                            check(codec, generator, other, theirs);
                          }
                        }
                        return null;
                      }));
            }
            start.countDown();
            for (Future<?> f : futures) {
              f.get();
            }
          } finally {
            pool.shutdownNow();
          }
        });
    assertEquals(threads * perThread, written.size());
    ValueDictionary restored =
        ValueDictionary.restore(
            dictionary.snapshot(), ValueDictionary.builder().maximumEntries(2_000));
    Codec<Node> restoredCodec = NodeCodecs.node(restored);
    written.forEach((id, bytes) -> check(restoredCodec, generator, id, bytes));
  }

  private static void check(Codec<Node> codec, NodeGenerator generator, long id, byte[] bytes) {
    Node decoded = codec.decodeLast(new ByteSource(bytes));
    if (!decoded.equals(generator.node(id))) {
      throw new AssertionError("node " + id + " decoded differently");
    }
  }
}
