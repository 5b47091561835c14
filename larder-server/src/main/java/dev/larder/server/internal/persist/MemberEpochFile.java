package dev.larder.server.internal.persist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A clustered member's epoch in its data directory (docs/spec/server-log.md, "Member epoch"): the
 * file {@code member-epoch}, one line {@code larder-member-epoch 1 <epoch>}, the epoch a signed
 * decimal long. Absent means 0 (a directory of a standalone server, or of a member that never
 * recorded one).
 *
 * <p>Implementation notes. A new epoch is written to {@code member-epoch.tmp}, forced, moved over
 * the file atomically and the directory forced, so a crash leaves the old line or the new one,
 * never a torn one. Writes are rare (a view change, the end of a state transfer). Not thread-safe:
 * its journal serializes writes.
 */
final class MemberEpochFile {

  static final String FILE = "member-epoch";
  private static final String PREFIX = "larder-member-epoch ";
  private static final String VERSION = "1";

  private final Path file;
  private final Path directory;

  private MemberEpochFile(Path directory) {
    this.directory = directory;
    this.file = directory.resolve(FILE);
  }

  /** Returns the epoch file of a data directory. */
  static MemberEpochFile in(Path directory) {
    return new MemberEpochFile(directory);
  }

  /**
   * Reads the recorded epoch.
   *
   * @return the epoch, 0 if the file is absent
   * @throws IOException if it cannot be read, names another version or is malformed
   */
  long read() throws IOException {
    if (!Files.exists(file)) {
      return 0;
    }
    String line = Files.readString(file, StandardCharsets.UTF_8).strip();
    String[] words = line.startsWith(PREFIX) ? line.substring(PREFIX.length()).split(" ") : null;
    if (words == null || words.length != 2 || !words[0].equals(VERSION)) {
      throw new IOException(
          file + " says '" + line + "'; this server reads '" + PREFIX + VERSION + " <epoch>'");
    }
    try {
      long epoch = Long.parseLong(words[1]);
      if (epoch < 0) {
        throw new NumberFormatException("negative");
      }
      return epoch;
    } catch (NumberFormatException e) {
      throw new IOException(file + " holds no epoch: '" + line + "'", e);
    }
  }

  /**
   * Records an epoch durably.
   *
   * @throws UncheckedIOException if it cannot be written
   */
  void write(long epoch) {
    Path tmp = directory.resolve(FILE + ".tmp");
    try {
      try (FileChannel ch =
          FileChannel.open(
              tmp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        ch.write(
            ByteBuffer.wrap(
                (PREFIX + VERSION + " " + epoch + "\n").getBytes(StandardCharsets.UTF_8)));
        ch.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
        dir.force(true);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record the member epoch in " + file, e);
    }
  }
}
