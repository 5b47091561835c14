package dev.larder.codec;

import static dev.larder.codec.CodecAssertions.encode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.ValueDictionary.Addition;
import dev.larder.codec.ValueDictionary.Mode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class ValueDictionaryTest {

  private static String value(int i) {
    return "http://example.org/model/" + i + "/1.0";
  }

  private static <T> T roundTrip(Codec<T> codec, T value) {
    return codec.decode(new ByteSource(encode(codec, value)));
  }

  @Test
  void alwaysModeInternsOnFirstSightAndWritesOneByteIds() {
    ValueDictionary d = ValueDictionary.builder().build();
    Codec<String> codec = d.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    assertEquals(1, encode(codec, value(1)).length);
    assertEquals(1, d.size("ns"));
    assertArrayEquals(new byte[] {1}, encode(codec, value(1)));
    assertArrayEquals(new byte[] {2}, encode(codec, value(2)));
    assertEquals(value(2), roundTrip(codec, value(2)));
  }

  @Test
  void adaptiveModeInternsTheSecondTimeAValueIsSeen() {
    ValueDictionary d = ValueDictionary.builder().build();
    Codec<String> codec = d.substitute("text", Codecs.strings(), Mode.ADAPTIVE);
    byte[] first = encode(codec, "repeating value");
    assertEquals(0, first[0], "first sighting is written inline");
    assertEquals("repeating value", codec.decode(new ByteSource(first)));
    assertEquals(1, encode(codec, "repeating value").length, "second sighting gets an id");
    assertEquals(1, d.size());
    assertEquals("repeating value", codec.decode(new ByteSource(first)), "old bytes still read");
  }

  @Test
  void entryBoundStopsInterningAndKeepsEarlierIds() {
    ValueDictionary d = ValueDictionary.builder().maximumEntries(100).build();
    Codec<String> codec = d.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    List<byte[]> early = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      early.add(encode(codec, value(i)));
    }
    assertEquals(100, d.size());
    byte[] overflow = encode(codec, value(100));
    assertEquals(0, overflow[0], "beyond the bound values stay inline");
    assertEquals(100, d.size());
    for (int i = 0; i < 100; i++) {
      assertArrayEquals(early.get(i), encode(codec, value(i)), "id of value " + i + " is stable");
      assertEquals(value(i), codec.decode(new ByteSource(early.get(i))));
    }
    assertEquals(value(100), roundTrip(codec, value(100)));
  }

  @Test
  void memoryBoundIsNeverExceeded() {
    ValueDictionary d = ValueDictionary.builder().maximumMemory(100_000).build();
    Codec<String> codec = d.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    for (int i = 0; i < 10_000; i++) {
      encode(codec, value(i));
      assertTrue(d.memoryUsed() <= 100_000, "memoryUsed " + d.memoryUsed());
    }
    assertTrue(d.size() > 100 && d.size() < 10_000, "filled to the bound: " + d.size());
    assertTrue(d.memoryUsed() > 90_000, "bound reached: " + d.memoryUsed());
  }

  @Test
  void memoryUsedCountsEachEntry() {
    ValueDictionary d = ValueDictionary.builder().build();
    Codec<String> codec = d.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    encode(codec, value(0));
    long before = d.memoryUsed();
    encode(codec, value(1));
    // Tables may grow as well; the entry itself costs at least its estimate.
    int encodedLength = encode(Codecs.strings(), value(1)).length;
    assertTrue(d.memoryUsed() - before >= ValueDictionary.entryCost(encodedLength));
  }

  @Test
  void memoryUsedTracksTheHeapTheDictionaryHolds() {
    ValueDictionary d =
        ValueDictionary.builder().maximumEntries(200_000).maximumMemory(256L << 20).build();
    Codec<String> codec = d.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    long heapBefore = settledHeap();
    for (int i = 0; i < 50_000; i++) {
      encode(codec, value(i));
    }
    long heapDelta = settledHeap() - heapBefore;
    double ratio = (double) d.memoryUsed() / heapDelta;
    assertTrue(
        ratio > 0.7 && ratio < 1.5,
        "memoryUsed " + d.memoryUsed() + " vs heap delta " + heapDelta + " (ratio " + ratio + ")");
    assertEquals(50_000, d.size(), "keeps the dictionary reachable until measured");
  }

  private static long settledHeap() {
    Runtime rt = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      used = Math.min(used, rt.totalMemory() - rt.freeMemory());
    }
    return used;
  }

  @Test
  void snapshotRestoresTheSameIds() {
    ValueDictionary d = ValueDictionary.builder().build();
    Codec<String> ns = d.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    Codec<Locale> locales = d.substitute("locale", Codecs.locales(), Mode.ALWAYS);
    List<byte[]> written = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      written.add(encode(ns, value(i)));
    }
    byte[] uk = encode(locales, Locale.UK);
    byte[] snapshot = d.snapshot();

    ValueDictionary restored = ValueDictionary.restore(snapshot, ValueDictionary.builder());
    assertEquals(d.size(), restored.size());
    assertEquals(List.of("ns", "locale"), restored.spaces());
    Codec<String> ns2 = restored.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    Codec<Locale> locales2 = restored.substitute("locale", Codecs.locales(), Mode.ALWAYS);
    for (int i = 0; i < 300; i++) {
      assertEquals(value(i), ns2.decode(new ByteSource(written.get(i))));
      assertArrayEquals(written.get(i), encode(ns2, value(i)));
    }
    assertEquals(Locale.UK, locales2.decode(new ByteSource(uk)));
    assertArrayEquals(snapshot, restored.snapshot());
  }

  @Test
  void restoreRejectsMalformedSnapshotsAndBoundsTooSmall() {
    ValueDictionary d = ValueDictionary.builder().build();
    Codec<String> ns = d.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    for (int i = 0; i < 10; i++) {
      encode(ns, value(i));
    }
    byte[] snapshot = d.snapshot();
    assertThrows(
        IllegalArgumentException.class,
        () -> ValueDictionary.restore(snapshot, ValueDictionary.builder().maximumEntries(5)));
    for (int n = 0; n < snapshot.length; n++) {
      byte[] truncated = java.util.Arrays.copyOf(snapshot, n);
      assertThrows(
          IllegalArgumentException.class,
          () -> ValueDictionary.restore(truncated, ValueDictionary.builder()),
          "prefix " + n);
    }
    byte[] badVersion = snapshot.clone();
    badVersion[4] = 9;
    assertThrows(
        IllegalArgumentException.class,
        () -> ValueDictionary.restore(badVersion, ValueDictionary.builder()));
  }

  /**
   * A snapshot is input from outside (a file, a peer): corrupted bytes either restore or fail with
   * {@link IllegalArgumentException}, and whatever restores can have its spaces bound.
   */
  @Test
  void restoreOfRandomlyCorruptedSnapshotsFailsOnlyWithIllegalArgument() {
    ValueDictionary d = ValueDictionary.builder().build();
    Codec<String> names = d.substitute("names", Codecs.strings(), Mode.ALWAYS);
    Codec<Long> numbers = d.substitute("numbers", Codecs.longs(), Mode.ALWAYS);
    for (int i = 0; i < 20; i++) {
      encode(names, value(i));
      encode(numbers, i * 1_000L);
    }
    byte[] snapshot = d.snapshot();
    Random random = new Random(20261125);
    int restored = 0;
    for (int round = 0; round < 5_000; round++) {
      byte[] corrupted = snapshot.clone();
      for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
        corrupted[random.nextInt(corrupted.length)] = (byte) random.nextInt(256);
      }
      try {
        ValueDictionary copy = ValueDictionary.restore(corrupted, ValueDictionary.builder());
        restored++;
        for (String space : copy.spaces()) {
          try {
            copy.substitute(space, Codecs.strings(), Mode.ALWAYS);
          } catch (IllegalArgumentException entriesOfAnotherType) {
            // reported as the contract says; the space stays unbound
          }
        }
      } catch (IllegalArgumentException rejected) {
        // the expected failure
      }
    }
    assertTrue(restored > 0 && restored < 5_000, "both outcomes seen: " + restored + " restored");
  }

  @Test
  void restoredEntriesThatDoNotDecodeAreReportedWhenTheSpaceIsBound() {
    ValueDictionary d = ValueDictionary.builder().build();
    encode(d.substitute("x", Codecs.strings(), Mode.ALWAYS), "not a long");
    ValueDictionary restored = ValueDictionary.restore(d.snapshot(), ValueDictionary.builder());
    assertThrows(
        IllegalArgumentException.class,
        () -> restored.substitute("x", Codecs.uuids(), Mode.ALWAYS));
  }

  @Test
  void listenersSeeAdditionsInOrderAndReplicasReplayThem() {
    ValueDictionary primary = ValueDictionary.builder().build();
    ValueDictionary replica = ValueDictionary.builder().build();
    List<Addition> log = new CopyOnWriteArrayList<>();
    primary.addListener(log::add);
    primary.addListener(replica::apply);
    Codec<String> codec = primary.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    Codec<String> replicaCodec = replica.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    for (int i = 0; i < 50; i++) {
      byte[] bytes = encode(codec, value(i));
      assertEquals(value(i), replicaCodec.decode(new ByteSource(bytes)));
    }
    assertEquals(50, log.size());
    for (int i = 0; i < 50; i++) {
      assertEquals(i, log.get(i).id());
    }
    replica.apply(log.get(3));
    assertEquals(50, replica.size(), "replaying a known addition does nothing");
    assertThrows(
        IllegalArgumentException.class,
        () -> replica.apply(new Addition("ns", 60, new byte[] {0})));
    assertThrows(
        IllegalArgumentException.class,
        () -> replica.apply(new Addition("ns", 2, log.get(3).value())));
  }

  @Test
  void aFailingListenerStopsTheAddition() {
    ValueDictionary d = ValueDictionary.builder().build();
    d.addListener(
        a -> {
          throw new IllegalStateException("log is down");
        });
    Codec<String> codec = d.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    assertThrows(IllegalStateException.class, () -> encode(codec, value(1)));
    assertEquals(0, d.size());
  }

  @Test
  void unknownIdsAreCodecExceptions() {
    ValueDictionary d = ValueDictionary.builder().build();
    Codec<String> codec = d.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    assertThrows(CodecException.class, () -> codec.decode(new ByteSource(new byte[] {5})));
    assertThrows(
        CodecException.class,
        () ->
            codec.decode(
                new ByteSource(
                    new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f})));
    assertFalse(codec.deterministic());
  }

  @Test
  void spacesHoldOneType() {
    ValueDictionary d = ValueDictionary.builder().build();
    d.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    d.substitute("ns", Codecs.strings(), Mode.ADAPTIVE);
    assertThrows(
        IllegalArgumentException.class, () -> d.substitute("ns", Codecs.locales(), Mode.ALWAYS));
  }

  @Test
  void concurrentEncodersAgreeOnOneIdPerValue() {
    ValueDictionary d = ValueDictionary.builder().maximumEntries(3_000).build();
    Codec<String> always = d.substitute("ns", Codecs.strings(), Mode.ALWAYS);
    Codec<String> adaptive = d.substitute("ns", Codecs.strings(), Mode.ADAPTIVE);
    int threads = 8;
    int values = 5_000;
    ConcurrentHashMap<String, byte[]> firstIdBytes = new ConcurrentHashMap<>();
    assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          ExecutorService pool = Executors.newFixedThreadPool(threads);
          try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
              int offset = t * 311;
              Codec<String> codec = t % 2 == 0 ? always : adaptive;
              futures.add(
                  pool.submit(
                      () -> {
                        start.await();
                        for (int i = 0; i < values; i++) {
                          String v = value((i + offset) % values);
                          byte[] bytes = encode(codec, v);
                          // Invariant: every encoding decodes to its value on every thread ...
                          if (!v.equals(codec.decode(new ByteSource(bytes)))) {
                            throw new AssertionError("decoded wrongly: " + v);
                          }
                          // ... and an id, once given, is the only id that value ever gets.
                          if (bytes[0] != 0) {
                            byte[] previous = firstIdBytes.putIfAbsent(v, bytes);
                            if (previous != null && !java.util.Arrays.equals(previous, bytes)) {
                              throw new AssertionError("two ids for " + v);
                            }
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
    assertEquals(3_000, d.size(), "filled exactly to the bound");
    assertEquals(3_000, firstIdBytes.size());
  }
}
