package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The set and sorted-set payload decoders fed random bytes and mutated valid payloads (flipped,
 * cut, extended): every read either answers or throws {@link IllegalArgumentException}, never
 * another exception, and never loops.
 */
class PayloadFuzzTest {
  private static final long SEED = 424242L;
  private static final int INPUTS = 20_000;

  @Test
  void decodersRefuseDamagedPayloadsCleanly() {
    Random r = new Random(SEED);
    List<byte[]> seeds = seeds(r);
    for (int i = 0; i < INPUTS; i++) {
      byte[] p = i % 4 == 0 ? randomBytes(r) : mutate(r, seeds.get(r.nextInt(seeds.size())));
      readSet(p);
      readZSet(p);
    }
  }

  private static List<byte[]> seeds(Random r) {
    List<byte[]> out = new ArrayList<>();
    for (int n : new int[] {1, 5, 100, 129, 600}) {
      List<byte[]> ints = new ArrayList<>();
      List<byte[]> strings = new ArrayList<>();
      List<ZSetPayload.Entry> entries = new ArrayList<>();
      List<ZSetPayload.Entry> integral = new ArrayList<>(); // mostly compact scores (encoding 4)
      for (int i = 0; i < n; i++) {
        ints.add(Long.toString(r.nextLong() >> r.nextInt(60)).getBytes(StandardCharsets.US_ASCII));
        byte[] m =
            ("m" + i + (i % 50 == 0 ? "x".repeat(70) : "")).getBytes(StandardCharsets.US_ASCII);
        strings.add(m);
        entries.add(new ZSetPayload.Entry(m, r.nextGaussian()));
        integral.add(
            new ZSetPayload.Entry(
                m, i % 7 == 0 ? r.nextGaussian() : (double) (r.nextLong() >> r.nextInt(64))));
      }
      out.add(SetPayload.encode(ints));
      out.add(SetPayload.encode(strings));
      out.add(ZSetPayload.encode(entries));
      out.add(ZSetPayload.encode(integral));
    }
    return out;
  }

  private static byte[] randomBytes(Random r) {
    byte[] b = new byte[r.nextInt(64)];
    r.nextBytes(b);
    if (b.length > 0 && r.nextBoolean()) {
      b[0] = (byte) r.nextInt(3);
    }
    return b;
  }

  private static byte[] mutate(Random r, byte[] seed) {
    byte[] b = seed.clone();
    for (int k = 1 + r.nextInt(4); k > 0; k--) {
      switch (r.nextInt(4)) {
        case 0 -> b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
        case 1 -> b[r.nextInt(b.length)] = (byte) r.nextInt(256);
        case 2 -> b = java.util.Arrays.copyOf(b, Math.max(1, r.nextInt(b.length + 1)));
        default -> {
          b = java.util.Arrays.copyOf(b, b.length + 1 + r.nextInt(8));
          b[b.length - 1] = (byte) r.nextInt(256);
        }
      }
    }
    return b;
  }

  private static void readSet(byte[] p) {
    try {
      int n = SetPayload.size(p);
      List<byte[]> all = SetPayload.members(p);
      assertEquals(n, all.size());
      for (int i = 0; i < n; i += 1 + n / 5) {
        SetPayload.member(p, i);
      }
      SetPayload.contains(p, "m7".getBytes(StandardCharsets.US_ASCII));
      SetPayload.contains(p, "12".getBytes(StandardCharsets.US_ASCII));
      SetPayload.add(p, "new".getBytes(StandardCharsets.US_ASCII));
      SetPayload.remove(p, "m3".getBytes(StandardCharsets.US_ASCII));
    } catch (IllegalArgumentException expected) {
      // a refusal is the right answer to damaged bytes
    }
  }

  private static void readZSet(byte[] p) {
    try {
      ZSetPayload.View v = ZSetPayload.view(p);
      for (int i = 0; i < v.size(); i += 1 + v.size() / 5) {
        v.member(i);
        v.score(i);
      }
      v.rank("m7".getBytes(StandardCharsets.US_ASCII));
      ZSetPayload.entries(p);
      ZSetPayload.put(p, "new".getBytes(StandardCharsets.US_ASCII), 1.5);
      ZSetPayload.remove(p, "m3".getBytes(StandardCharsets.US_ASCII));
    } catch (IllegalArgumentException expected) {
      // a refusal is the right answer to damaged bytes
    }
  }
}
