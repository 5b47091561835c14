package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RESTORE's payload reader under random and mutated input. Most mutations get their checksum fixed
 * up afterwards, so that the content checks behind it are what is exercised. Properties: the reader
 * answers a verdict and never throws; a payload it accepts decodes, and re-encodes to the same
 * bytes (so what RESTORE stores is what a DUMP of it gives back).
 */
class DumpPayloadFuzzTest {
  private static final int INPUTS = 200_000;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void randomAndMutatedPayloadsAreJudgedWithoutFailing() {
    SplittableRandom random = new SplittableRandom(20261129L);
    int accepted = 0;
    for (int i = 0; i < INPUTS; i++) {
      byte[] input = i % 4 == 0 ? randomBytes(random) : mutate(valid(random), random);
      if (random.nextInt(8) != 0 && input.length >= 7) {
        input = DumpPayloadTest.withCrc(input);
      }
      DumpPayload.Verdict verdict;
      try {
        verdict = DumpPayload.check(input);
      } catch (RuntimeException e) {
        throw new AssertionError("check threw on " + Arrays.toString(input), e);
      }
      assertNotNull(verdict);
      if (verdict == DumpPayload.Verdict.OK) {
        accepted++;
        StoredValue v = DumpPayload.decode(input);
        assertArrayEquals(input, DumpPayload.encode(v), "re-encoded: " + Arrays.toString(input));
        if (v.type() == ValueType.HASH) {
          assertTrue(!HashPayload.decode(v.payload()).isEmpty());
        }
      }
    }
    assertTrue(accepted > INPUTS / 20, "the mutations leave some payloads sound: " + accepted);
  }

  private static byte[] randomBytes(SplittableRandom r) {
    byte[] b = new byte[r.nextInt(40)];
    r.nextBytes(b);
    if (b.length > 2 && r.nextBoolean()) {
      b[0] = 0x4C;
      b[1] = 1;
    }
    return b;
  }

  private static byte[] valid(SplittableRandom r) {
    if (r.nextBoolean()) {
      byte[] s = new byte[r.nextInt(20)];
      r.nextBytes(s);
      return DumpPayload.encode(StoredValue.string(s));
    }
    Map<String, byte[]> fields = new LinkedHashMap<>();
    int n = 1 + r.nextInt(5);
    for (int i = 0; i < n; i++) {
      byte[] f = new byte[r.nextInt(6)];
      r.nextBytes(f);
      byte[] v = new byte[r.nextInt(6)];
      r.nextBytes(v);
      fields.put(HashPayload.field(f), v);
    }
    return DumpPayload.encode(new StoredValue(ValueType.HASH, 0, 0, 0, HashPayload.encode(fields)));
  }

  /** Up to three flips, insertions, deletions or boundary bytes, or none. */
  private static byte[] mutate(byte[] b, SplittableRandom r) {
    int n = r.nextInt(4);
    for (int m = 0; m < n && b.length > 0; m++) {
      int at = r.nextInt(b.length);
      switch (r.nextInt(4)) {
        case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
        case 1 -> {
          byte[] longer = new byte[b.length + 1];
          System.arraycopy(b, 0, longer, 0, at);
          longer[at] = (byte) r.nextInt(256);
          System.arraycopy(b, at, longer, at + 1, b.length - at);
          b = longer;
        }
        case 2 -> {
          byte[] shorter = new byte[b.length - 1];
          System.arraycopy(b, 0, shorter, 0, at);
          System.arraycopy(b, at + 1, shorter, at, b.length - at - 1);
          b = shorter;
        }
        default -> b[at] = (byte) (r.nextBoolean() ? 0xFF : 0x80);
      }
    }
    return b;
  }
}
