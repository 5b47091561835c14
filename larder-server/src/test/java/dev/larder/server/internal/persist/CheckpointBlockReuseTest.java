package dev.larder.server.internal.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A checkpoint's block writer that reuses each database's array ({@code Writer.reusing}: what a
 * checkpoint writes through) hands on the same blocks, byte for byte, as one that gives each block
 * an array of its own: with items of several databases and list chunks, items larger than a block,
 * and items given as parts of a reused array.
 */
class CheckpointBlockReuseTest {

  @Test
  void aReusingWriterHandsOnTheSameBlocks() {
    List<String> copied = new ArrayList<>();
    List<String> reused = new ArrayList<>();
    CheckpointBlock.Writer copying =
        new CheckpointBlock.Writer(b -> copied.add(HexFormat.of().formatHex(b)));
    CheckpointBlock.Writer reusing =
        CheckpointBlock.Writer.reusing(
            (bytes, length) -> reused.add(HexFormat.of().formatHex(bytes, 0, length)));
    SplittableRandom random = new SplittableRandom(7);
    List<String> written = new ArrayList<>();
    byte[] scratch = new byte[0];
    for (int i = 0; i < 20_000; i++) {
      int space = random.nextInt(8) == 0 ? 0x80 | random.nextInt(3) : random.nextInt(3);
      byte[] key = ("key:" + i).getBytes(StandardCharsets.US_ASCII);
      byte[] storedKey = new byte[key.length + 1];
      storedKey[0] = (byte) space;
      System.arraycopy(key, 0, storedKey, 1, key.length);
      int payload =
          random.nextInt(500) == 0 ? 70_000 + random.nextInt(10_000) : random.nextInt(200);
      // tag 0x20 (a string), a version of one to three bytes (dropped by the writer), the payload
      int versionBytes = 1 + random.nextInt(3);
      byte[] value = new byte[1 + versionBytes + payload];
      random.nextBytes(value);
      value[0] = 0x20;
      for (int v = 1; v <= versionBytes; v++) {
        value[v] = (byte) (v < versionBytes ? 0x81 : 0x03);
      }
      written.add(asText(space, key, 0, key.length, value, 0, 1, value, 1 + versionBytes, payload));
      copying.add(storedKey, value);
      // the reusing writer is given the entry in a reused array, as the snapshot walk gives it
      int length = storedKey.length + value.length;
      if (scratch.length < length) {
        scratch = new byte[length];
      }
      Arrays.fill(scratch, (byte) 0x5a);
      System.arraycopy(storedKey, 0, scratch, 0, storedKey.length);
      System.arraycopy(value, 0, scratch, storedKey.length, value.length);
      reusing.add(scratch, storedKey.length, value.length);
    }
    copying.finish();
    reusing.finish();
    assertEquals(copied.size(), reused.size());
    assertEquals(copied, reused);
    assertEquals(copying.items(), reusing.items());
    // and the blocks hold exactly the items written, each value without its version
    List<String> read = new ArrayList<>();
    for (String block : reused) {
      CheckpointBlock.read(
          HexFormat.of().parseHex(block),
          new CheckpointBlock.Visitor() {
            @Override
            public void header(long itemVersion, long keys) {
              throw new AssertionError("a header among the blocks");
            }

            @Override
            public void item(int db, byte[] b, int keyAt, int keyLength, int at, int length) {
              read.add(asText(db & 0xFF, b, keyAt, keyLength, b, at, 1, b, at + 1, length - 1));
            }
          });
    }
    Collections.sort(written);
    Collections.sort(read);
    assertEquals(written, read);
  }

  /** An item as text: its space, key, tag and payload. */
  private static String asText(
      int space,
      byte[] keyBytes,
      int keyAt,
      int keyLength,
      byte[] tagBytes,
      int tagAt,
      int tagLength,
      byte[] payloadBytes,
      int payloadAt,
      int payloadLength) {
    HexFormat hex = HexFormat.of();
    return space
        + " "
        + hex.formatHex(keyBytes, keyAt, keyAt + keyLength)
        + " "
        + hex.formatHex(tagBytes, tagAt, tagAt + tagLength)
        + " "
        + hex.formatHex(payloadBytes, payloadAt, payloadAt + payloadLength);
  }
}
