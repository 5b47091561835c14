package dev.larder.model;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import dev.larder.codec.ValueDictionary;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The node codecs against random, truncated and corrupted bytes, in both flavours. */
class NodeCodecFuzzTest {

  @Test
  void plainNodes() {
    fuzz(NodeCodecs.node());
  }

  @Test
  void substitutedNodes() {
    ValueDictionary dictionary = NodeCodecs.newDictionary();
    Codec<Node> codec = NodeCodecs.node(dictionary);
    NodeGenerator generator = new NodeGenerator(1);
    for (int i = 0; i < 100; i++) {
      encode(codec, generator.node(i));
    }
    fuzz(codec);
  }

  private static void fuzz(Codec<Node> codec) {
    NodeGenerator generator = new NodeGenerator(3);
    SplittableRandom random = new SplittableRandom(11);
    assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          for (int n = 0; n < 20; n++) {
            byte[] valid = encode(codec, generator.node(n));
            for (int cut = 0; cut < valid.length; cut++) {
              byte[] prefix = Arrays.copyOf(valid, cut);
              assertThrows(CodecException.class, () -> codec.decode(new ByteSource(prefix)));
            }
            for (int i = 0; i < 500; i++) {
              byte[] bytes = valid.clone();
              for (int f = 0; f < 1 + random.nextInt(3); f++) {
                bytes[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
              }
              decodeHostile(codec, bytes);
              byte[] noise = new byte[random.nextInt(200)];
              random.nextBytes(noise);
              decodeHostile(codec, noise);
            }
          }
        });
  }

  private static byte[] encode(Codec<Node> codec, Node node) {
    ByteSink sink = new ByteSink();
    codec.encode(node, sink);
    return sink.toByteArray();
  }

  private static void decodeHostile(Codec<Node> codec, byte[] bytes) {
    try {
      codec.decodeLast(new ByteSource(bytes));
    } catch (CodecException expected) {
      // the only acceptable failure
    } catch (RuntimeException | StackOverflowError e) {
      fail("threw " + e, e);
    }
  }
}
