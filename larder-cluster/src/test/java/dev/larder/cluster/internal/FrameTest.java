package dev.larder.cluster.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.codec.CodecException;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

/** The version-4 wire frame of docs/spec/cluster-wire.md: golden bytes, round trips, fuzzing. */
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
      "04"
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

  /**
   * An INSTALLED of view 6 made by the member whose UUID is 1:2, sent by one last available in 5.
   */
  private static final String INSTALLED =
      "04"
          + "11"
          + "0000000000000000"
          + "0600000000000000"
          + "00"
          + "00"
          + "ffffffff"
          + "08000000"
          + "0500000000000000"
          + "ffffffff"
          + "00000000"
          + "01000000"
          + "24000000"
          + HexFormat.of().formatHex("00000000-0000-0001-0000-000000000002".getBytes(UTF_8))
          + "00000000";

  @Test
  void installedEncodesAsTheSpecSays() {
    Address creator = new UUID(1, 2);
    View view = View.create(creator, 6, creator, new UUID(3, 4));
    Frame f = ViewConfirmations.frame(view, 5);
    assertEquals(INSTALLED, HexFormat.of().formatHex(f.encode()));
    byte[] bytes = HexFormat.of().parseHex(INSTALLED);
    Frame decoded = Frame.decode(bytes, 0, bytes.length);
    assertEquals(Frame.T_INSTALLED, decoded.type());
    assertEquals(6, decoded.viewId());
    assertEquals(List.of(ViewConfirmations.creatorOf(view)), decoded.names());
  }

  /**
   * A BACKUPS of view 9 from an {@link Outbox}: a put of key 01 to value 0a0b, then a removal of
   * key 02, ints [0] (no dictionary).
   */
  private static final String BACKUPS =
      "04"
          + "12"
          + "0000000000000000"
          + "0900000000000000"
          + "00"
          + "00"
          + "ffffffff"
          + "ffffffff"
          + "ffffffff"
          + "01000000"
          + "00000000"
          + "00000000"
          + "02000000"
          + "01000000"
          + "01"
          + "02000000"
          + "0a0b"
          + "01000000"
          + "02"
          + "ffffffff";

  @Test
  void anOutboxSendsItsWritesInOrderAsOneBackupsFrame() {
    Outbox box = new Outbox();
    List<Frame> sent = new java.util.ArrayList<>();
    box.lock();
    try {
      box.add(9, new int[] {0}, new byte[] {1}, new byte[] {10, 11}, sent::add);
      box.add(9, new int[] {0}, new byte[] {2}, null, sent::add);
      assertEquals(List.of(), sent);
      box.drain(f -> sent.add(Frame.decode(f.encode(), 0, f.encode().length)));
      assertEquals(BACKUPS, HexFormat.of().formatHex(sent.getFirst().encode()));
      assertEquals(Frame.T_BACKUPS, sent.getFirst().type());
      assertEquals(9, sent.getFirst().viewId());
      assertArrayEquals(new byte[] {2}, sent.getFirst().entries().get(2));
      assertNull(sent.getFirst().entries().get(3));
      assertEquals(true, box.isEmpty());
      box.drain(sent::add);
      assertEquals(1, sent.size());
    } finally {
      box.unlock();
    }
  }

  @Test
  void anOutboxSendsOneWriteAsABackupAndSplitsAtAViewChange() {
    Outbox box = new Outbox();
    List<Frame> sent = new java.util.ArrayList<>();
    box.lock();
    try {
      box.add(9, new int[] {0}, new byte[] {1}, new byte[] {10}, sent::add);
      // a write of a newer view sends the older view's first, as a BACKUP of one write
      box.add(10, new int[] {0}, new byte[] {2}, null, sent::add);
      assertEquals(1, sent.size());
      Frame first = sent.getFirst();
      assertEquals(Frame.T_BACKUP, first.type());
      assertEquals(9, first.viewId());
      assertEquals(Op.PUT, Op.of(first.op()));
      assertArrayEquals(new byte[] {1}, first.key());
      assertArrayEquals(new byte[] {10}, first.value());
      box.drain(sent::add);
      Frame second = sent.get(1);
      assertEquals(Frame.T_BACKUP, second.type());
      assertEquals(10, second.viewId());
      assertEquals(Op.REMOVE, Op.of(second.op()));
      assertNull(second.value());
    } finally {
      box.unlock();
    }
  }

  @Test
  void refusesAnotherVersionAndTrailingBytes() {
    byte[] bytes = HexFormat.of().parseHex(GOLDEN);
    bytes[0] = 3;
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
          bytes[0] = 4; // past the version check, into the fields
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
