package dev.larder.server.internal.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The server log's byte layouts as docs/spec/server-log.md draws them (golden bytes, version 1),
 * read back as written, and their readers fed random bytes: they either read them or refuse them
 * with an IllegalArgumentException, never another exception.
 */
class RecordLayoutsTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void aChangeRecordIsTheSpecsBytes() {
    List<ChangeRecord.Change> changes =
        List.of(
            new ChangeRecord.Change(
                ChangeRecord.PUT, HEX.parseHex("006b"), HEX.parseHex("200576"), 0),
            new ChangeRecord.Change(ChangeRecord.DELETE, HEX.parseHex("0178"), null, 0),
            new ChangeRecord.Change(ChangeRecord.EVICT, HEX.parseHex("006b"), null, 300),
            new ChangeRecord.Change(ChangeRecord.FLUSH_DB, null, null, 3),
            new ChangeRecord.Change(ChangeRecord.FLUSH_ALL, null, null, 0));
    ChangeRecord.Payload payload = new ChangeRecord.Payload(changes);
    byte[] out = new byte[payload.length()];
    payload.writeTo(out, 0);
    assertEquals(
        "05" + "0102006b03200576" + "02020178" + "0302006bac02" + "0403" + "05",
        HEX.formatHex(out));

    List<String> read = new ArrayList<>();
    ChangeRecord.read(
        out,
        new ChangeRecord.Visitor() {
          @Override
          public void put(byte[] key, byte[] value) {
            read.add("put " + HEX.formatHex(key) + " " + HEX.formatHex(value));
          }

          @Override
          public void delete(byte[] key) {
            read.add("delete " + HEX.formatHex(key));
          }

          @Override
          public void evict(byte[] key, long version) {
            read.add("evict " + HEX.formatHex(key) + " " + version);
          }

          @Override
          public void flush(int db) {
            read.add("flush " + db);
          }
        });
    assertEquals(
        List.of("put 006b 200576", "delete 0178", "evict 006b 300", "flush 3", "flush -1"), read);
  }

  @Test
  void checkpointEntriesAreTheSpecsBytes() {
    // version 3: item version 100, then 1,000,000 keys (varint c0 84 3d)
    assertEquals("000364c0843d", HEX.formatHex(CheckpointBlock.header(100, 1_000_000)));
    List<byte[]> blocks = new ArrayList<>();
    CheckpointBlock.Writer writer = new CheckpointBlock.Writer(blocks::add);
    // db 0 key "k": tag 0x20 (string), version 7 (dropped), payload "ab"
    writer.add(HEX.parseHex("006b"), HEX.parseHex("20076162"));
    // db 2 key "x": tag 0x24 (expiry), version 300 (two bytes, dropped), expiry 5, payload "z"
    writer.add(HEX.parseHex("0278"), HEX.parseHex("24ac02057a"));
    // a chunk of a list of db 1 (stored key 0x81 ...): tag 0x22 (list), version 9, payload 01 01 01
    // 63 01
    writer.add(HEX.parseHex("810000000000000001000000007a"), HEX.parseHex("22090101016301"));
    writer.finish();
    assertEquals(
        List.of(
            "0100016b03206162",
            "010201780324057a",
            "01810d0000000000000001000000007a062201010163" + "01"),
        blocks.stream().map(HEX::formatHex).toList());

    List<String> read = new ArrayList<>();
    CheckpointBlock.Visitor visitor =
        new CheckpointBlock.Visitor() {
          @Override
          public void header(long itemVersion, long keys) {
            read.add("header " + itemVersion + " " + keys);
          }

          @Override
          public void item(
              int db,
              byte[] block,
              int keyOffset,
              int keyLength,
              int valueOffset,
              int valueLength) {
            read.add(
                HEX.formatHex(new byte[] {(byte) db})
                    + HEX.formatHex(block, keyOffset, keyOffset + keyLength)
                    + " "
                    + HEX.formatHex(block, valueOffset, valueOffset + valueLength));
          }
        };
    CheckpointBlock.read(CheckpointBlock.header(100, 1_000_000), visitor);
    blocks.forEach(b -> CheckpointBlock.read(b, visitor));
    // version 1 (no key count) and 2 headers, as servers before wrote them, are still read
    CheckpointBlock.read(HEX.parseHex("000164"), visitor);
    CheckpointBlock.read(HEX.parseHex("00026402"), visitor);
    assertEquals(
        List.of(
            "header 100 1000000",
            "006b 206162",
            "0278 24057a",
            "810000000000000001000000007a 220101016301",
            "header 100 0",
            "header 100 2"),
        read);
    assertThrows(
        IllegalArgumentException.class,
        () -> CheckpointBlock.read(HEX.parseHex("000464"), visitor),
        "a header of a version this server does not know");
    assertThrows(
        IllegalArgumentException.class,
        () -> CheckpointBlock.read(HEX.parseHex("0110016b03206162"), visitor),
        "a block of no database and no chunk space");
  }

  @Test
  void randomBytesAreReadOrRefusedWithIllegalArgument() {
    Random random = new Random(33);
    ChangeRecord.Visitor changes =
        new ChangeRecord.Visitor() {
          @Override
          public void put(byte[] key, byte[] value) {}

          @Override
          public void delete(byte[] key) {}

          @Override
          public void evict(byte[] key, long version) {}

          @Override
          public void flush(int db) {}
        };
    CheckpointBlock.Visitor blocks =
        new CheckpointBlock.Visitor() {
          @Override
          public void header(long itemVersion, long keys) {}

          @Override
          public void item(
              int db,
              byte[] block,
              int keyOffset,
              int keyLength,
              int valueOffset,
              int valueLength) {}
        };
    for (int i = 0; i < 100_000; i++) {
      byte[] b = new byte[random.nextInt(40)];
      random.nextBytes(b);
      if (b.length > 0 && random.nextBoolean()) {
        b[0] = (byte) random.nextInt(3); // a plausible count or entry kind, to get deeper
      }
      try {
        ChangeRecord.read(b, changes);
      } catch (IllegalArgumentException refused) {
        // as specified
      }
      try {
        CheckpointBlock.read(b, blocks);
      } catch (IllegalArgumentException refused) {
        // as specified
      }
    }
  }
}
