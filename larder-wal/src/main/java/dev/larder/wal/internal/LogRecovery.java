package dev.larder.wal.internal;

import dev.larder.wal.LogCorruptedException;
import dev.larder.wal.LogFile;
import dev.larder.wal.LogReplay;
import dev.larder.wal.RecoveryReport;
import dev.larder.wal.WalConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Rebuilds the durable state from a log directory: the last complete checkpoint, then every record
 * after it.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A record that is not whole and intact at offset {@code p} is one of two things. If it lies in
 * the tail segment (the last one holding records) and no intact record after it says, through its
 * forced-end field, that {@code p} had been forced, it was never acknowledged under
 * {@code always}: a torn tail, cut off and reported. Otherwise it is damage to forced bytes:
 * recovery refuses, naming the file and offset, unless salvage was asked for; then it skips to the
 * next intact record and reports the bytes and the sequence gap lost. Segments before the tail
 * segment were forced whole before any record was written to the next one, so any bad record in
 * them is damage. (A roll creates the next segment, header only, before the previous one's end is
 * forced, so segments after the tail may exist and be empty.)
 *
 * <p>Temporary files ({@code *.tmp}) are leftovers of a checkpoint or rename that did not finish
 * and are deleted. A checkpoint file is renamed into place only after being forced, so a damaged
 * one is damage too.
 */
public final class LogRecovery {

  private final WalConfig config;
  private final LogReplay replay;
  private final List<String> problems = new ArrayList<>();
  private long bytesDropped;
  private long checkpointSequence;
  private long checkpointEntries;
  private long recordsReplayed;
  private long lastSequence;
  private long lastSegment;

  /**
   * @param config the log's configuration
   * @param replay receives the state
   */
  public LogRecovery(WalConfig config, LogReplay replay) {
    this.config = config;
    this.replay = replay;
  }

  /**
   * Runs recovery.
   *
   * @return the report
   * @throws LogCorruptedException on damage without salvage
   * @throws IOException on failure
   */
  public RecoveryReport run() throws IOException {
    long started = System.nanoTime();
    List<String> names = config.files().list(config.directory());
    List<Long> checkpoints = new ArrayList<>();
    List<Long> segments = new ArrayList<>();
    for (String name : names) {
      if (name.endsWith(".tmp")) {
        config.files().delete(path(name));
      } else if (SegmentNames.checkpointSequence(name) >= 0) {
        checkpoints.add(SegmentNames.checkpointSequence(name));
      } else if (SegmentNames.segmentNumber(name) >= 0) {
        segments.add(SegmentNames.segmentNumber(name));
      }
    }
    loadCheckpoint(checkpoints);
    lastSequence = checkpointSequence;
    int tail = tailSegment(segments);
    for (int i = 0; i < segments.size(); i++) {
      replaySegment(segments.get(i), i >= tail);
      lastSegment = segments.get(i);
    }
    return new RecoveryReport(checkpointSequence, checkpointEntries, recordsReplayed,
        lastSequence, bytesDropped, problems, System.nanoTime() - started);
  }

  /**
   * The index of the segment where the unforced tail may be: the last one holding any record.
   * Segments after it hold at most a header: a roll creates the next segment before the flusher
   * forces the end of the previous one, so a cut can leave a torn segment followed by an empty one.
   */
  private int tailSegment(List<Long> segments) throws IOException {
    for (int i = segments.size() - 1; i > 0; i--) {
      try (LogFile file = config.files().open(path(SegmentNames.segment(segments.get(i))))) {
        if (file.size() > RecordLayout.HEADER_BYTES) {
          return i;
        }
      }
    }
    return 0;
  }

  /** @return the highest segment number found, 0 if none */
  public long lastSegment() {
    return lastSegment;
  }

  private void loadCheckpoint(List<Long> sequences) throws IOException {
    for (int i = sequences.size() - 1; i >= 0; i--) {
      String name = SegmentNames.checkpoint(sequences.get(i));
      List<byte[]> entries = new ArrayList<>();
      try (LogFile file = config.files().open(path(name))) {
        long[] result = CheckpointLayout.read(file, name, entries::add);
        checkpointSequence = result[0];
        checkpointEntries = result[1];
      } catch (CheckpointLayout.CheckpointDamage damage) {
        if (!config.salvage()) {
          throw new LogCorruptedException(name, damage.offset, damage.getMessage());
        }
        problems.add("salvage: checkpoint " + name + " is damaged at offset " + damage.offset
            + " (" + damage.getMessage() + "); falling back to an older checkpoint or the log");
        continue;
      }
      for (byte[] entry : entries) {
        replay.checkpointEntry(checkpointSequence, entry);
      }
      return;
    }
  }

  private void replaySegment(long number, boolean last) throws IOException {
    String name = SegmentNames.segment(number);
    boolean tornHeader = false;
    try (LogFile file = config.files().open(path(name))) {
      long size = file.size();
      if (size > Integer.MAX_VALUE - 16) {
        throw new LogCorruptedException(name, 0, "segment larger than 2 GiB");
      }
      byte[] bytes = new byte[(int) size];
      int n = file.read(0, bytes, 0, bytes.length);
      String headerProblem = RecordLayout.checkHeader(bytes, n);
      if (headerProblem != null) {
        if (!last || n >= RecordLayout.HEADER_BYTES) {
          throw new LogCorruptedException(name, 0, headerProblem);
        }
        // Created but its header never forced: nothing in it was ever acknowledged.
        problems.add("torn tail: segment " + name + " had an incomplete header (" + n
            + " bytes); deleted");
        bytesDropped += n;
        tornHeader = true;
      } else {
        int end = scan(name, bytes, n, last);
        if (end < n) {
          file.truncate(end);
        }
      }
    }
    if (tornHeader) {
      config.files().delete(path(name));
    }
  }

  /** Replays the records of one segment; returns where its intact content ends. */
  private int scan(String name, byte[] bytes, int size, boolean last) {
    int p = RecordLayout.HEADER_BYTES;
    while (p < size) {
      int n = RecordLayout.validAt(bytes, p, size);
      if (n > 0) {
        deliver(bytes, p);
        p += n;
        continue;
      }
      if (last && (RecordLayout.allZero(bytes, p, size) || !provenForced(bytes, p, size))) {
        problems.add("torn tail: cut " + name + " at offset " + p + ", dropping " + (size - p)
            + " bytes never acknowledged as forced");
        bytesDropped += size - p;
        return p;
      }
      if (!config.salvage()) {
        throw new LogCorruptedException(name, p, "record fails its length or checksum check");
      }
      int next = nextIntact(bytes, p + 1, size);
      long before = lastSequence;
      problems.add("salvage: skipped bytes " + p + ".." + next + " of " + name
          + " (records after sequence " + before + (next < size
          ? " up to sequence " + (RecordLayout.sequence(bytes, next) - 1) : "")
          + " lost)");
      bytesDropped += next - p;
      p = next;
    }
    return size;
  }

  private void deliver(byte[] bytes, int at) {
    long sequence = RecordLayout.sequence(bytes, at);
    if (sequence <= checkpointSequence) {
      return; // already in the checkpoint
    }
    replay.record(sequence, RecordLayout.type(bytes, at), RecordLayout.payload(bytes, at));
    recordsReplayed++;
    lastSequence = Math.max(lastSequence, sequence);
  }

  /** True if an intact record after {@code p} says {@code p} had been forced. */
  private static boolean provenForced(byte[] bytes, int p, int size) {
    for (int q = p + 1; q < size; q++) {
      if (plausible(bytes, q, size) && RecordLayout.validAt(bytes, q, size) > 0
          && RecordLayout.forcedEnd(bytes, q) > p) {
        return true;
      }
    }
    return false;
  }

  private static int nextIntact(byte[] bytes, int from, int size) {
    for (int q = from; q < size; q++) {
      if (plausible(bytes, q, size) && RecordLayout.validAt(bytes, q, size) > 0) {
        return q;
      }
    }
    return size;
  }

  /** Cheap filter before a checksum: a length in range and a forced end not after itself. */
  private static boolean plausible(byte[] bytes, int q, int size) {
    if (size - q < RecordLayout.FRAME_BYTES + RecordLayout.BODY_PREFIX) {
      return false;
    }
    int body = RecordLayout.getInt(bytes, q);
    long forcedEnd = RecordLayout.forcedEnd(bytes, q);
    return body >= RecordLayout.BODY_PREFIX && body <= size - q - RecordLayout.FRAME_BYTES
        && forcedEnd >= RecordLayout.HEADER_BYTES && forcedEnd <= q;
  }

  private Path path(String name) {
    return config.directory().resolve(name);
  }
}
