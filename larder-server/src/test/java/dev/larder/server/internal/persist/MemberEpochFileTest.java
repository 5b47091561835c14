package dev.larder.server.internal.persist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clustered member's epoch file: absent reads 0 for every segment, epochs per segment read back
 * (written in runs), a version 1 file reads as its epoch for every segment, malformed lines and
 * another segment count are refused.
 */
class MemberEpochFileTest {

  @TempDir Path dir;

  private String line() throws IOException {
    return Files.readString(dir.resolve(MemberEpochFile.FILE), StandardCharsets.UTF_8).strip();
  }

  @Test
  void absentReadsZeroAndEpochsPerSegmentReadBack() throws IOException {
    MemberEpochFile f = MemberEpochFile.in(dir);
    assertArrayEquals(new long[4], f.read().of(4, dir));
    long e = (3L << 32) | 17;
    long[] epochs = {e, e, 0, e + 1, e + 1, e + 1};
    f.write(epochs);
    assertArrayEquals(epochs, MemberEpochFile.in(dir).read().of(6, dir));
    assertEquals("larder-member-epoch 2 6 " + e + "x2 0 " + (e + 1) + "x3", line());
    assertFalse(Files.exists(dir.resolve(MemberEpochFile.FILE + ".tmp")));
    f.write(new long[6]);
    assertArrayEquals(new long[6], f.read().of(6, dir));
    assertEquals("larder-member-epoch 2 6 0x6", line());
  }

  @Test
  void aVersionOneFileClaimsEverySegmentAtItsEpoch() throws IOException {
    long e = (2L << 32) | 9;
    Files.writeString(
        dir.resolve(MemberEpochFile.FILE),
        "larder-member-epoch 1 " + e + "\n",
        StandardCharsets.UTF_8);
    assertArrayEquals(new long[] {e, e, e}, MemberEpochFile.in(dir).read().of(3, dir));
  }

  @Test
  void anotherVersionMalformedRunsOrAnotherSegmentCountAreRefused() throws IOException {
    Path file = dir.resolve(MemberEpochFile.FILE);
    Files.writeString(file, "larder-member-epoch 3 5\n", StandardCharsets.UTF_8);
    IOException e = assertThrows(IOException.class, () -> MemberEpochFile.in(dir).read());
    assertTrue(e.getMessage().contains("larder-member-epoch 2 <segments>"), e.getMessage());
    for (String bad :
        new String[] {
          "larder-member-epoch 1 five",
          "larder-member-epoch 1 -4",
          "larder-member-epoch 2 4 7x3",
          "larder-member-epoch 2 4 7x3 1 1",
          "larder-member-epoch 2 4 7x0 1x4",
          "larder-member-epoch 2 0",
          "larder-member-epoch 2 2 -1x2"
        }) {
      Files.writeString(file, bad + "\n", StandardCharsets.UTF_8);
      assertThrows(IOException.class, () -> MemberEpochFile.in(dir).read(), bad);
    }
    MemberEpochFile.in(dir).write(new long[] {1, 2});
    MemberEpochFile.Recorded r = MemberEpochFile.in(dir).read();
    IllegalStateException s = assertThrows(IllegalStateException.class, () -> r.of(3, file));
    assertTrue(s.getMessage().contains("2 segments"), s.getMessage());
  }
}
