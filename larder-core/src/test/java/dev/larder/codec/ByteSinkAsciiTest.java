package dev.larder.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link ByteSink#writeAsciiIfAscii} and the allocation-free key path it gives strings. */
class ByteSinkAsciiTest {

  @Test
  void asciiIsAppendedAfterWhatIsThere() {
    ByteSink sink = new ByteSink(1);
    sink.writeByte(7);
    assertTrue(sink.writeAsciiIfAscii("key-0042"));
    byte[] expected = new byte[9];
    expected[0] = 7;
    System.arraycopy("key-0042".getBytes(StandardCharsets.US_ASCII), 0, expected, 1, 8);
    assertArrayEquals(expected, sink.toByteArray());
  }

  @Test
  void nonAsciiAppendsNothing() {
    // U+0141 has an ASCII low byte (0x41): the test must look at the whole char.
    for (String s : new String[] {"caf\u00e9", "\u0141odz", "x\ud800", "\u20ac"}) {
      ByteSink sink = new ByteSink(4);
      sink.writeByte(1);
      assertFalse(sink.writeAsciiIfAscii(s), s);
      assertEquals(1, sink.size(), s);
      assertArrayEquals(new byte[] {1}, sink.toByteArray(), s);
    }
  }

  @Test
  void stringKeysEncodeAsBeforeAndAllocateNothing() {
    Codec<String> strings = Codecs.strings();
    ByteSink sink = new ByteSink(128);
    for (String s :
        new String[] {"", "0000000042", "a".repeat(64), "a".repeat(65), "caf\u00e9", "\u0141odz"}) {
      sink.reset();
      strings.encodeLast(s, sink);
      assertArrayEquals(s.getBytes(StandardCharsets.UTF_8), sink.toByteArray(), s);
    }
    // The meter's own calls allocate a few bytes: a thousand encodes through an intermediate
    // array (at least 24 bytes each) would allocate far more than this bound.
    long before = AllocationMeter.allocatedBytes();
    for (int i = 0; i < 1000; i++) {
      sink.reset();
      strings.encodeLast("0000000043", sink);
    }
    long allocated = AllocationMeter.allocatedBytes() - before;
    assertTrue(allocated < 1000, allocated + " bytes allocated encoding a thousand ASCII keys");
  }
}
