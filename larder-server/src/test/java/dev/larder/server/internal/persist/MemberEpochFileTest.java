package dev.larder.server.internal.persist;

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

/** A clustered member's epoch file: absent reads 0, a write reads back, another version refused. */
class MemberEpochFileTest {

  @TempDir Path dir;

  @Test
  void absentReadsZeroAndAWriteReadsBack() throws IOException {
    MemberEpochFile f = MemberEpochFile.in(dir);
    assertEquals(0, f.read());
    long epoch = (3L << 32) | 17;
    f.write(epoch);
    assertEquals(epoch, MemberEpochFile.in(dir).read());
    assertEquals(
        "larder-member-epoch 1 " + epoch,
        Files.readString(dir.resolve(MemberEpochFile.FILE), StandardCharsets.UTF_8).strip());
    assertFalse(Files.exists(dir.resolve(MemberEpochFile.FILE + ".tmp")));
    f.write(0);
    assertEquals(0, f.read());
  }

  @Test
  void anotherVersionOrNoNumberIsRefusedNamingTheLineItReads() throws IOException {
    Path file = dir.resolve(MemberEpochFile.FILE);
    Files.writeString(file, "larder-member-epoch 2 5\n", StandardCharsets.UTF_8);
    IOException e = assertThrows(IOException.class, () -> MemberEpochFile.in(dir).read());
    assertTrue(e.getMessage().contains("larder-member-epoch 1 <epoch>"), e.getMessage());
    Files.writeString(file, "larder-member-epoch 1 five\n", StandardCharsets.UTF_8);
    assertThrows(IOException.class, () -> MemberEpochFile.in(dir).read());
    Files.writeString(file, "larder-member-epoch 1 -4\n", StandardCharsets.UTF_8);
    assertThrows(IOException.class, () -> MemberEpochFile.in(dir).read());
  }
}
