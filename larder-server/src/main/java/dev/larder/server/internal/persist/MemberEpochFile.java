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
import java.util.Arrays;

/**
 * A clustered member's epochs in its data directory (docs/spec/server-log.md, "Member epoch"): the
 * file {@code member-epoch}, one line {@code larder-member-epoch 2 <segments> <run>...}, one epoch
 * per segment written as runs ({@code <epoch>} or {@code <epoch>x<count>}, each a decimal long).
 * Version 1 ({@code larder-member-epoch 1 <epoch>}, one epoch claiming every segment) is still
 * read. Absent means 0 for every segment (a directory of a standalone server, or of a member that
 * never recorded one).
 *
 * <p>Implementation notes. New epochs are written to {@code member-epoch.tmp}, forced, moved over
 * the file atomically and the directory forced, so a crash leaves the old line or the new one,
 * never a torn one. Writes are rare (a view change, the end of a state transfer). Not thread-safe:
 * its journal serializes writes.
 */
final class MemberEpochFile {

  /**
   * The epochs a file holds.
   *
   * @param all the epoch of every segment (version 1, or absent: 0), when {@code segments} is null
   * @param segments one epoch per segment (version 2), or null
   */
  @SuppressWarnings(
      "ArrayRecordComponent") // never compared: read once at start and turned into epochs
  record Recorded(long all, long[] segments) {

    /**
     * Returns one epoch per segment of a cluster of {@code n} segments.
     *
     * @throws IllegalStateException if the file recorded another number of segments
     */
    long[] of(int n, Path file) {
      if (segments == null) {
        long[] out = new long[n];
        Arrays.fill(out, all);
        return out;
      }
      if (segments.length != n) {
        throw new IllegalStateException(
            file
                + " records the epochs of "
                + segments.length
                + " segments, and the cluster has "
                + n
                + " (cluster-segments changed): start with the cluster-segments it was written"
                + " with, or without this directory's data");
      }
      return segments.clone();
    }
  }

  static final String FILE = "member-epoch";
  private static final String PREFIX = "larder-member-epoch ";
  private static final String VERSION = "2";

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

  /** Returns the file's path (for messages). */
  Path path() {
    return file;
  }

  /**
   * Reads the recorded epochs.
   *
   * @return the epochs; 0 for every segment if the file is absent
   * @throws IOException if it cannot be read, names another version or is malformed
   */
  Recorded read() throws IOException {
    if (!Files.exists(file)) {
      return new Recorded(0, null);
    }
    String line = Files.readString(file, StandardCharsets.UTF_8).strip();
    String[] words = line.startsWith(PREFIX) ? line.substring(PREFIX.length()).split(" ") : null;
    if (words == null || !(words[0].equals("1") || words[0].equals(VERSION))) {
      throw new IOException(
          file
              + " says '"
              + line
              + "'; this server reads '"
              + PREFIX
              + VERSION
              + " <segments> <epoch>[x<count>]...' (or version 1)");
    }
    try {
      if (words[0].equals("1")) {
        if (words.length != 2) {
          throw new NumberFormatException("one epoch expected");
        }
        return new Recorded(epoch(words[1]), null);
      }
      int n = Integer.parseInt(words[1]);
      if (n < 1) {
        throw new NumberFormatException("segments " + n);
      }
      long[] epochs = new long[n];
      int at = 0;
      for (int w = 2; w < words.length; w++) {
        int x = words[w].indexOf('x');
        long e = epoch(x < 0 ? words[w] : words[w].substring(0, x));
        int count = x < 0 ? 1 : Integer.parseInt(words[w].substring(x + 1));
        if (count < 1 || count > n - at) {
          throw new NumberFormatException("runs beyond " + n + " segments");
        }
        Arrays.fill(epochs, at, at + count, e);
        at += count;
      }
      if (at != n) {
        throw new NumberFormatException("runs cover " + at + " of " + n + " segments");
      }
      return new Recorded(0, epochs);
    } catch (NumberFormatException e) {
      throw new IOException(file + " holds no epochs: '" + line + "' (" + e.getMessage() + ")", e);
    }
  }

  private static long epoch(String word) {
    long epoch = Long.parseLong(word);
    if (epoch < 0) {
      throw new NumberFormatException("negative epoch " + epoch);
    }
    return epoch;
  }

  /** Returns the version 2 line of some epochs, one per segment, in runs. */
  static String line(long[] epochs) {
    StringBuilder b = new StringBuilder(PREFIX).append(VERSION).append(' ').append(epochs.length);
    for (int i = 0; i < epochs.length; ) {
      int j = i;
      while (j < epochs.length && epochs[j] == epochs[i]) {
        j++;
      }
      b.append(' ').append(epochs[i]);
      if (j - i > 1) {
        b.append('x').append(j - i);
      }
      i = j;
    }
    return b.toString();
  }

  /**
   * Records epochs durably, one per segment.
   *
   * @throws UncheckedIOException if they cannot be written
   */
  void write(long[] epochs) {
    Path tmp = directory.resolve(FILE + ".tmp");
    try {
      try (FileChannel ch =
          FileChannel.open(
              tmp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        ch.write(ByteBuffer.wrap((line(epochs) + "\n").getBytes(StandardCharsets.UTF_8)));
        ch.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
        dir.force(true);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record the member epochs in " + file, e);
    }
  }
}
