package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void randomAndMutatedPayloadsAreJudgedWithoutFailing() {
    SplittableRandom random = new SplittableRandom(20261129L);
    int accepted = 0;
    java.util.EnumMap<ValueType, Integer> acceptedByType = new java.util.EnumMap<>(ValueType.class);
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
        acceptedByType.merge(v.type(), 1, Integer::sum);
        assertArrayEquals(input, DumpPayload.encode(v), "re-encoded: " + Arrays.toString(input));
        if (v.type() == ValueType.HASH) {
          assertTrue(!HashPayload.decode(v.payload()).isEmpty());
        }
        accepted(v);
      }
    }
    assertTrue(accepted > INPUTS / 20, "the mutations leave some payloads sound: " + accepted);
    for (ValueType type : ValueType.values()) {
      assertTrue(
          acceptedByType.getOrDefault(type, 0) > 100, "accepted " + type + ": " + acceptedByType);
    }
  }

  /**
   * What an accepted collection must be for every command to read it: it decodes whole and is not
   * empty, and a sorted set's entries are in order with no NaN and no member twice.
   */
  private static void accepted(StoredValue v) {
    switch (v.type()) {
      case LIST -> assertTrue(!ListPayload.decode(v.payload()).isEmpty());
      case SET -> assertTrue(SetPayload.size(v.payload()) > 0);
      case ZSET -> {
        List<ZSetPayload.Entry> es = ZSetPayload.entries(v.payload());
        assertTrue(!es.isEmpty());
        Set<String> members = new HashSet<>();
        for (int i = 0; i < es.size(); i++) {
          assertTrue(!Double.isNaN(es.get(i).score()));
          assertTrue(members.add(HashPayload.field(es.get(i).member())), "a member twice");
          if (i > 0) {
            assertTrue(ZSetPayload.ORDER.compare(es.get(i - 1), es.get(i)) < 0, "order");
          }
        }
      }
      default -> {
        // strings take any bytes; hashes are checked above
      }
    }
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
    return switch (r.nextInt(5)) {
      case 0 ->
          DumpPayload.encode(
              new StoredValue(ValueType.LIST, 0, 0, 0, ListPayload.encode(elements(r, 1))));
      case 1 ->
          DumpPayload.encode(
              new StoredValue(ValueType.SET, 0, 0, 0, SetPayload.encode(elements(r, 1))));
      case 2 -> validZSet(r);
      default -> validStringOrHash(r);
    };
  }

  private static byte[] validZSet(SplittableRandom r) {
    List<ZSetPayload.Entry> entries = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (byte[] m : elements(r, 1)) {
      if (seen.add(HashPayload.field(m))) {
        double score = r.nextInt(4) == 0 ? -0.0 : r.nextInt(7) - 3 + r.nextInt(3) / 2.0;
        entries.add(new ZSetPayload.Entry(m, score));
      }
    }
    return DumpPayload.encode(
        new StoredValue(ValueType.ZSET, 0, 0, 0, ZSetPayload.encode(entries)));
  }

  /**
   * Between {@code min} and 6 short elements, some of them decimal integers (so sets are INTSETs
   * now and then), some repeated.
   */
  private static List<byte[]> elements(SplittableRandom r, int min) {
    int n = min + r.nextInt(6);
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (r.nextInt(3) == 0) {
        out.add(Long.toString(r.nextInt(2_000) - 1_000).getBytes(StandardCharsets.ISO_8859_1));
      } else {
        byte[] e = new byte[r.nextInt(5)];
        r.nextBytes(e);
        out.add(e);
      }
    }
    return out;
  }

  private static byte[] validStringOrHash(SplittableRandom r) {
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
