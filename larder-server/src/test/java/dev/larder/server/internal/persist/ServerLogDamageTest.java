package dev.larder.server.internal.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import dev.larder.wal.LogCorruptedException;
import dev.larder.wal.LogDirectoryLockedException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A directory in use is refused; a damaged log refuses to open naming the file and the offset,
 * unless salvage is asked for, which opens with what is intact and reports the loss; a torn tail is
 * cut and reported; a directory of another kind is refused.
 */
class ServerLogDamageTest {
  private static final long START = TestServer.START;

  @Test
  void aSecondServerOnTheDirectoryIsRefused(@TempDir Path dir) throws Exception {
    try (TestServer first = new TestServer(Map.of(), dir, START)) {
      first.resp().cmd("SET", "a", "1");
      LogDirectoryLockedException e =
          assertThrows(
              LogDirectoryLockedException.class, () -> new TestServer(Map.of(), dir, START));
      assertTrue(e.getMessage().contains(dir + " is in use"), e.getMessage());
      assertEquals("$1\r\n1\r\n", first.resp().cmd("GET", "a"));
    }
    try (TestServer again = new TestServer(Map.of(), dir, START)) {
      assertEquals("$1\r\n1\r\n", again.resp().cmd("GET", "a"));
    }
  }

  @Test
  void damageBeforeTheTailRefusesToOpenUnlessSalvaged(@TempDir Path dir) throws Exception {
    writeTwoSegments(dir);
    Path first = segments(dir).getFirst();
    long offset = 16 + 40; // inside the segment's first record, after its 16-byte header
    flipByte(first, offset);
    LogCorruptedException e =
        assertThrows(LogCorruptedException.class, () -> new TestServer(Map.of(), dir, START));
    assertEquals(first.getFileName().toString(), e.file());
    assertTrue(e.offset() <= offset && e.offset() >= 16, "offset " + e.offset());
    // Refusing changed nothing: the same damage is found again.
    assertThrows(LogCorruptedException.class, () -> new TestServer(Map.of(), dir, START));

    try (TestServer s = new TestServer(Map.of("recovery", "salvage"), dir, START)) {
      List<String> problems = s.log.recovered().report().problems();
      assertTrue(
          problems.stream()
              .anyMatch(
                  p -> p.startsWith("salvage:") && p.contains(first.getFileName().toString())),
          problems.toString());
      // The second segment's writes, after the damage, are there.
      assertEquals("$6\r\nsecond\r\n", s.resp().cmd("GET", "b199"));
    }
  }

  @Test
  void aTornTailIsCutAndReported(@TempDir Path dir) throws Exception {
    writeTwoSegments(dir);
    Path last = segments(dir).getLast();
    long size = Files.size(last);
    try (RandomAccessFile f = new RandomAccessFile(last.toFile(), "rw")) {
      f.setLength(size - 5); // the last record loses its end, as in a crash mid-write
    }
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      List<String> problems = s.log.recovered().report().problems();
      assertTrue(problems.stream().anyMatch(p -> p.startsWith("torn tail")), problems.toString());
      assertEquals("$6\r\nsecond\r\n", s.resp().cmd("GET", "b198"));
      assertEquals("$-1\r\n", s.resp().cmd("GET", "b199"));
    }
  }

  @Test
  void aDirectoryOfAnotherKindIsRefused(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("caches"), "accounts\n");
    IOException tx = assertThrows(IOException.class, () -> new TestServer(Map.of(), dir, START));
    assertTrue(tx.getMessage().contains("larder-tx"), tx.getMessage());
    Path other = dir.resolve("other");
    Files.createDirectories(other);
    Files.writeString(other.resolve("server-log"), "larder-server-log 99\n");
    IOException version =
        assertThrows(IOException.class, () -> new TestServer(Map.of(), other, START));
    assertTrue(version.getMessage().contains("larder-server-log 99"), version.getMessage());
  }

  @Test
  void aDirectoryWhoseLogFilesWereDeletedIsRefused(@TempDir Path dir) throws Exception {
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      s.resp().cmd("SET", "a", "1");
    }
    try (var files = Files.list(dir)) {
      for (Path p : files.filter(p -> p.toString().endsWith(".wal")).toList()) {
        Files.delete(p);
      }
    }
    IOException e = assertThrows(IOException.class, () -> new TestServer(Map.of(), dir, START));
    assertTrue(e.getMessage().contains("no log segment or checkpoint left"), e.getMessage());
  }

  /** Two opens, so two segments: the first wholly before the tail. */
  private static void writeTwoSegments(Path dir) throws IOException {
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      for (int i = 0; i < 200; i++) {
        s.resp().cmd("SET", "a" + i, "first");
      }
    }
    try (TestServer s = new TestServer(Map.of(), dir, START)) {
      for (int i = 0; i < 200; i++) {
        s.resp().cmd("SET", "b" + i, "second");
      }
    }
  }

  private static List<Path> segments(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      List<Path> found =
          files
              .filter(p -> p.toString().endsWith(".wal"))
              .filter(p -> p.toFile().length() > 16)
              .sorted()
              .toList();
      assertEquals(2, found.size(), found.toString());
      return found;
    }
  }

  private static void flipByte(Path file, long offset) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(offset);
      int b = f.read();
      f.seek(offset);
      f.write(b ^ 0x5A);
    }
  }
}
