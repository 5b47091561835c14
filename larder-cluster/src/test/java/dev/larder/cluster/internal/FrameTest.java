package dev.larder.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.codec.CodecException;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The version-2 wire frame of docs/spec/cluster-wire.md: golden bytes, round trips, fuzzing. */
class FrameTest {

  private static final Frame SAMPLE =
      new Frame(
          Frame.T_WRITE,
          7,
          3,
          Op.REPLACE_IF.code(),
          Frame.F_ASYNC,
          new byte[] {1, 2},
          new byte[] {9},
          null,
          new int[] {5},
          List.of("a"),
          List.of(new byte[] {4}, new byte[0]));

  /** The spec's layout, byte for byte; changing it means a new version. */
  private static final String GOLDEN =
      "02"
          + "01"
          + "0700000000000000"
          + "0300000000000000"
          + "03"
          + "01"
          + "02000000"
          + "0102"
          + "01000000"
          + "09"
          + "ffffffff"
          + "01000000"
          + "05000000"
          + "01000000"
          + "01000000"
          + "61"
          + "01000000"
          + "01000000"
          + "04"
          + "00000000";

  @Test
  void encodesAsTheSpecSays() {
    assertEquals(GOLDEN, HexFormat.of().formatHex(SAMPLE.encode()));
  }

  @Test
  void decodesTheGoldenBytes() {
    byte[] bytes = HexFormat.of().parseHex(GOLDEN);
    Frame f = Frame.decode(bytes, 0, bytes.length);
    assertEquals(Frame.T_WRITE, f.type());
    assertEquals(7, f.reqId());
    assertEquals(3, f.viewId());
    assertEquals(Op.REPLACE_IF, Op.of(f.op()));
    assertArrayEquals(new byte[] {1, 2}, f.key());
    assertNull(f.expected());
    assertArrayEquals(new int[] {5}, f.ints());
    assertEquals(List.of("a"), f.names());
    assertArrayEquals(new byte[] {4}, f.entries().get(0));
    assertArrayEquals(new byte[0], f.entries().get(1));
  }

  @Test
  void refusesAnotherVersionAndTrailingBytes() {
    byte[] bytes = HexFormat.of().parseHex(GOLDEN);
    bytes[0] = 1;
    assertThrows(CodecException.class, () -> Frame.decode(bytes, 0, bytes.length));
    byte[] longer = HexFormat.of().parseHex(GOLDEN + "00");
    assertThrows(CodecException.class, () -> Frame.decode(longer, 0, longer.length));
  }

  @Test
  void randomBytesFailCleanly() {
    Random random = new Random(23);
    byte[] golden = HexFormat.of().parseHex(GOLDEN);
    for (int i = 0; i < 20_000; i++) {
      byte[] bytes = i % 2 == 0 ? new byte[random.nextInt(64)] : golden.clone();
      if (i % 2 == 0) {
        random.nextBytes(bytes);
        if (bytes.length > 0) {
          bytes[0] = 2; // past the version check, into the fields
        }
      } else {
        bytes[random.nextInt(bytes.length)] = (byte) random.nextInt();
      }
      try {
        Frame.decode(bytes, 0, bytes.length);
      } catch (CodecException e) {
        // expected for corrupt input: a clean exception, never a hang or an OutOfMemoryError
      }
    }
  }
}
