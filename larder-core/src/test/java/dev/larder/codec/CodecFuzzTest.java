package dev.larder.codec;

import static dev.larder.codec.CodecAssertions.encode;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.larder.codec.TestTypes.Tree;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Decoders against hostile input: random bytes, truncated encodings and corrupted encodings. A
 * decoder may return some value or throw {@link CodecException}; any other exception, a hang (each
 * codec's run has a time limit), or allocating far more than the input's length fails.
 */
class CodecFuzzTest {

  private static final int RANDOM_INPUTS = 5_000;
  private static final int CORRUPTIONS = 2_000;

  /**
   * Allocation allowed per decode: a fixed allowance plus a multiple of the input length. The fixed
   * part covers throwing: an exception's stack trace under the test runner's deep stack costs about
   * 32 KiB. A decoder trusting a corrupted length allocates megabytes or more.
   */
  private static final long ALLOCATION_BASE = 64 * 1024;

  private static final long ALLOCATION_PER_BYTE = 64;

  @TestFactory
  Stream<DynamicTest> randomBytes() {
    return CodecCatalogue.all().stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.name(),
                    () ->
                        assertTimeoutPreemptively(
                            Duration.ofSeconds(30),
                            () -> {
                              SplittableRandom random = new SplittableRandom(e.name().hashCode());
                              for (int i = 0; i < RANDOM_INPUTS; i++) {
                                byte[] input = new byte[random.nextInt(48)];
                                random.nextBytes(input);
                                decodeHostile(e.codec(), input);
                              }
                            })));
  }

  @TestFactory
  Stream<DynamicTest> corruptedAndTruncatedEncodings() {
    return CodecCatalogue.all().stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.name(),
                    () ->
                        assertTimeoutPreemptively(
                            Duration.ofSeconds(30),
                            () -> {
                              SplittableRandom random =
                                  new SplittableRandom(e.name().hashCode() * 31L);
                              for (Object sample : e.samples()) {
                                byte[] valid = encode(e.codec(), sample);
                                CodecAssertions.assertPrefixesRejected(e.codec(), valid);
                                for (int i = 0; i < CORRUPTIONS; i++) {
                                  decodeHostile(e.codec(), corrupt(valid, random));
                                }
                              }
                            })));
  }

  @Test
  void javaSerializationRejectsCorruptedStreamsWithinLimits() {
    Codec<TestTypes.Legacy> codec = Codecs.javaSerialization(TestTypes.Legacy.class);
    byte[] valid = encode(codec, new TestTypes.Legacy("x", new int[] {1, 2, 3}));
    SplittableRandom random = new SplittableRandom(7);
    assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          for (int i = 0; i < 500; i++) {
            byte[] input = corrupt(valid, random);
            try {
              codec.decode(new ByteSource(input));
            } catch (CodecException expected) {
              // the only acceptable failure
            }
          }
        });
  }

  @Test
  void hugeDeclaredLengthsAreRejectedBeforeAllocating() {
    byte[] huge = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 1, 2, 3};
    for (Codec<?> codec :
        new Codec<?>[] {
          Codecs.bytes(),
          Codecs.strings(),
          Codecs.bigIntegers(),
          Codecs.list(Codecs.booleans()),
          Codecs.set(Codecs.booleans()),
          Codecs.map(Codecs.booleans(), Codecs.booleans())
        }) {
      assertThrows(
          CodecException.class, () -> codec.decode(new ByteSource(huge)), codec.type().getName());
      long before = AllocationMeter.allocatedBytes();
      assertThrows(
          CodecException.class, () -> codec.decode(new ByteSource(huge)), codec.type().getName());
      long allocated = AllocationMeter.allocatedBytes() - before;
      assertTrue(allocated < ALLOCATION_BASE, codec.type() + " allocated " + allocated);
    }
  }

  @Test
  void overlongVarintIsRejected() {
    byte[] eleven = new byte[11];
    java.util.Arrays.fill(eleven, (byte) 0x80);
    assertThrows(CodecException.class, () -> Codecs.longs().decode(new ByteSource(eleven)));
  }

  @Test
  void nestingBeyondTheLimitThrowsInsteadOfOverflowingTheStack() {
    // Tree: null bitmap (no nulls), label "", children: one child, repeated without end.
    ByteSink sink = new ByteSink();
    for (int i = 0; i < 100_000; i++) {
      sink.writeByte(0);
      sink.writeByte(0);
      sink.writeByte(1);
    }
    Codec<Tree> codec = Codecs.record(Tree.class);
    assertThrows(CodecException.class, () -> codec.decode(new ByteSource(sink.toByteArray())));
    Tree deep = new Tree("leaf", java.util.List.of());
    for (int i = 0; i < 1_000; i++) {
      deep = new Tree("", java.util.List.of(deep));
    }
    Tree tooDeep = deep;
    assertThrows(CodecException.class, () -> codec.encode(tooDeep, new ByteSink()));
  }

  private static byte[] corrupt(byte[] valid, SplittableRandom random) {
    byte[] bytes = valid.clone();
    int flips = 1 + random.nextInt(3);
    for (int f = 0; f < flips && bytes.length > 0; f++) {
      bytes[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
    }
    if (random.nextInt(4) == 0 && bytes.length > 0) {
      bytes = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length));
    }
    return bytes;
  }

  /**
   * Decodes twice and meters the second run: the first may bootstrap string concatenation or load
   * classes on a path seen for the first time, which is not the decoder's allocation.
   */
  private static void decodeHostile(Codec<Object> codec, byte[] input) {
    decodeOnce(codec, input);
    long before = AllocationMeter.allocatedBytes();
    decodeOnce(codec, input);
    long allocated = AllocationMeter.allocatedBytes() - before;
    long allowed = ALLOCATION_BASE + ALLOCATION_PER_BYTE * input.length;
    assertTrue(
        allocated <= allowed,
        codec.type().getName() + " allocated " + allocated + " bytes decoding " + input.length);
  }

  private static void decodeOnce(Codec<Object> codec, byte[] input) {
    try {
      codec.decode(new ByteSource(input));
      codec.decodeLast(new ByteSource(input));
    } catch (CodecException expected) {
      // the only acceptable failure
    } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
      fail(codec.type().getName() + " threw " + e + " on " + CodecAssertions.hex(input), e);
    }
  }
}
