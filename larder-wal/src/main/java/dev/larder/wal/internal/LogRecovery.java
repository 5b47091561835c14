package dev.larder.wal.internal;

import dev.larder.wal.FileLayer;
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
 * after it, checking that no file of the log is missing.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Damage.</b> A record that is not whole and intact at offset {@code p} is one of two things.
 * If it lies in the tail segment (the last one holding anything beyond its header) and no intact
 * record after it says, through its forced-end field, that {@code p} had been forced, it was never
 * acknowledged under {@code always}: a torn tail, cut off and reported. Otherwise it is damage to
 * forced bytes: recovery refuses, naming the file and offset, unless salvage was asked for; then it
 * skips to the next intact record and reports the bytes and the sequence gap lost. Segments before
 * the tail segment were forced whole before any record was written to the next one, so any bad
 * record in them is damage.
 *
 * <p><b>Missing files.</b> {@link LogContinuity} checks that the segments read begin where the
 * checkpoint ends, follow one another without a gap in numbers or sequences, and that the newest
 * has no footer (a footer says a successor was created). Reading starts at the last segment that
 * begins at or before the checkpoint's sequence: older ones, left by a checkpoint that did not get
 * to delete them, hold only what the checkpoint has.
 *
 * <p><b>Segments after the tail.</b> A roll creates the next segment, header only, before the
 * flusher finishes the previous one (writes its last records and footer, and forces it), so
 * segments after the tail segment may exist and be empty. The first of them is kept and checked if
 * the tail segment has its footer: it was created before the tail was finished, when every record
 * of the tail had been appended, so it begins where the tail ends. Any other is deleted (newest
 * first): its predecessor was never finished, so its header may name records the crash took (a roll
 * appends to memory, and creates the next segment, before anything is written), and it holds
 * nothing. No footer names a deleted segment, so deleting it cannot make a later recovery think a
 * successor missing; the log continues after the segment kept.
 *
 * <p>Temporary files ({@code *.tmp}) are leftovers of a checkpoint or rename that did not finish
 * and are deleted. A checkpoint file is renamed into place only after being forced, so a damaged
 * one is damage too.
 */
public final class LogRecovery {

  private final WalConfig config;
  private final FileLayer files;
  private final LogReplay replay;
  private final List<String> problems = new ArrayList<>();
  private long bytesDropped;
  private String checkpointName;
  private long checkpointSequence;
  private long checkpointEntries;
  private long recordsReplayed;
  private long lastSequence;
  private long lastSegment;
  private LogWriter.SegmentEnd unfinished;
  private LogContinuity continuity;
  private final List<Long> deleted = new ArrayList<>();

  /**
   * @param config the log's configuration
   * @param files the file layer to read through (the configuration's, perhaps wrapped)
   * @param replay receives the state
   */
  public LogRecovery(WalConfig config, FileLayer files, LogReplay replay) {
    this.config = config;
    this.files = files;
    this.replay = replay;
  }

  /**
   * Runs recovery.
   *
   * @return the report
   * @throws LogCorruptedException on damage, or missing files ({@code LogGapException}), without
   *     salvage
   * @throws IOException on failure
   */
  public RecoveryReport run() throws IOException {
    long started = System.nanoTime();
    List<Long> checkpoints = new ArrayList<>();
    List<Long> numbers = new ArrayList<>();
    for (String name : files.list(config.directory())) {
      if (name.endsWith(".tmp")) {
        files.delete(path(name));
      } else if (SegmentNames.checkpointSequence(name) >= 0) {
        checkpoints.add(SegmentNames.checkpointSequence(name));
      } else if (SegmentNames.segmentNumber(name) >= 0) {
        numbers.add(SegmentNames.segmentNumber(name));
      }
    }
    loadCheckpoint(checkpoints);
    lastSequence = checkpointSequence;
    continuity =
        new LogContinuity(
            config.directory(), config.salvage(), problems, checkpointName, checkpointSequence);
    List<SegmentFile> segments = readHeaders(numbers);
    if (segments.isEmpty()) {
      continuity.noSegments();
    } else {
      replaySegments(segments);
    }
    lastSequence = Math.max(lastSequence, continuity.end());
    for (long number : numbers) {
      if (!deleted.contains(number)) {
        // Every file kept, even one salvage skipped: a new segment never overwrites one.
        lastSegment = Math.max(lastSegment, number);
      }
    }
    return new RecoveryReport(
        checkpointSequence,
        checkpointEntries,
        recordsReplayed,
        lastSequence,
        bytesDropped,
        problems,
        System.nanoTime() - started);
  }

  /** Returns the highest segment number kept, 0 if none. */
  public long lastSegment() {
    return lastSegment;
  }

  /**
   * Returns the newest segment kept, if it is in the current format and has no footer yet (the
   * writer gives it one once its successor exists); else null.
   */
  public LogWriter.SegmentEnd unfinished() {
    return unfinished;
  }

  private void replaySegments(List<SegmentFile> segments) throws IOException {
    int start = start(segments);
    int tail = tail(segments, start);
    SegmentFile first = segments.get(start);
    if (first.header == null) {
      if (tail == start) {
        // No segment from here on holds anything, and this one's header was never written
        // whole: the log was being created.
        dropAfter(segments, start - 1);
        return;
      }
      damage(
          first.name,
          0,
          "segment header incomplete ("
              + first.size
              + " bytes) though later"
              + " segments hold records");
      List<SegmentFile> rest = new ArrayList<>(segments);
      rest.remove(start);
      replaySegments(rest);
      return;
    }
    continuity.first(first.number, first.header);
    SegmentFile previous = null;
    for (int i = start; i <= tail; i++) {
      SegmentFile segment = segments.get(i);
      if (segment.header == null) {
        damage(
            segment.name,
            0,
            "segment header incomplete ("
                + segment.size
                + " bytes) though"
                + " later segments hold records");
        continue;
      }
      if (previous != null) {
        continuity.next(previous.number, segment.number, segment.header);
      }
      replaySegment(segment, i == tail);
      previous = segment;
    }
    if (previous.footer != null
        && tail + 1 < segments.size()
        && segments.get(tail + 1).header != null) {
      // The tail was finished: the segment after it was created first, and begins where it ends.
      SegmentFile next = segments.get(tail + 1);
      continuity.next(previous.number, next.number, next.header);
      previous = next;
      dropAfter(segments, tail + 1);
    } else {
      dropAfter(segments, tail);
    }
    if (previous.footer != null) {
      continuity.footerOfNewest(previous.number, previous.footer);
    }
    if (previous.footer == null && previous.header.version() == SegmentHeader.VERSION) {
      unfinished = new LogWriter.SegmentEnd(previous.number, previous.end);
    }
  }

  /**
   * The index of the first segment to read: with a checkpoint, the last one that begins at or
   * before its sequence (older ones hold only what the checkpoint has); else the first.
   */
  private int start(List<SegmentFile> segments) {
    if (checkpointName == null) {
      return 0;
    }
    int start = 0;
    for (int i = 0; i < segments.size(); i++) {
      SegmentHeader h = segments.get(i).header;
      if (h != null && h.knowsPrevious() && h.previousSequence() <= checkpointSequence) {
        start = i;
      }
    }
    return start;
  }

  /**
   * The index of the segment where the unforced tail may be: the last one holding anything beyond
   * its header, or {@code start} if none does.
   */
  private static int tail(List<SegmentFile> segments, int start) {
    for (int i = segments.size() - 1; i > start; i--) {
      SegmentFile s = segments.get(i);
      if (s.header != null && s.size > s.header.size()) {
        return i;
      }
    }
    return start;
  }

  /** Deletes the segments after index {@code keep}, newest first; they hold nothing. */
  private void dropAfter(List<SegmentFile> segments, int keep) throws IOException {
    for (int i = segments.size() - 1; i > keep; i--) {
      SegmentFile s = segments.get(i);
      if (s.header == null) {
        problems.add(
            "torn tail: segment "
                + s.name
                + " had an incomplete header ("
                + s.size
                + " bytes); deleted");
        bytesDropped += s.size;
      }
      files.delete(path(s.name));
      deleted.add(s.number);
    }
  }

  private List<SegmentFile> readHeaders(List<Long> numbers) throws IOException {
    List<SegmentFile> segments = new ArrayList<>();
    for (long number : numbers) {
      String name = SegmentNames.segment(number);
      byte[] bytes = new byte[SegmentHeader.BYTES];
      long size;
      int n;
      try (LogFile file = files.open(path(name))) {
        size = file.size();
        n = file.read(0, bytes, 0, (int) Math.min(size, bytes.length));
      }
      try {
        SegmentHeader header = SegmentHeader.decode(bytes, n);
        if (header.number() >= 0 && header.number() != number) {
          damage(name, 0, "header says segment " + header.number());
          continue;
        }
        segments.add(new SegmentFile(number, size, header));
      } catch (SegmentHeader.Damage d) {
        if (d.incomplete) {
          segments.add(new SegmentFile(number, size, null));
        } else {
          damage(name, d.offset, d.getMessage());
        }
      }
    }
    return segments;
  }

  /** Refuses, or under salvage reports that the whole file is skipped. */
  private void damage(String name, long offset, String detail) {
    if (!config.salvage()) {
      throw new LogCorruptedException(name, offset, detail);
    }
    problems.add("salvage: skipped " + name + ": " + detail + " at offset " + offset);
  }

  private void loadCheckpoint(List<Long> sequences) throws IOException {
    for (int i = sequences.size() - 1; i >= 0; i--) {
      String name = SegmentNames.checkpoint(sequences.get(i));
      CheckpointLayout.Content content;
      try (LogFile file = files.open(path(name))) {
        content = CheckpointLayout.read(file, name);
        checkpointSequence = content.sequence();
        checkpointEntries = content.count();
      } catch (CheckpointLayout.CheckpointDamage damage) {
        if (!config.salvage()) {
          throw new LogCorruptedException(name, damage.offset, damage.getMessage());
        }
        problems.add(
            "salvage: checkpoint "
                + name
                + " is damaged at offset "
                + damage.offset
                + " ("
                + damage.getMessage()
                + "); falling back to an older checkpoint or the log");
        continue;
      }
      checkpointName = name;
      long sequence = checkpointSequence;
      content.forEach(
          (bytes, offset, length) -> replay.checkpointEntry(sequence, bytes, offset, length));
      return;
    }
  }

  private void replaySegment(SegmentFile segment, boolean tail) throws IOException {
    try (LogFile file = files.open(path(segment.name))) {
      long size = file.size();
      if (size > Integer.MAX_VALUE - 16) {
        throw new LogCorruptedException(segment.name, 0, "segment larger than 2 GiB");
      }
      byte[] bytes = new byte[(int) size];
      int n = file.read(0, bytes, 0, bytes.length);
      int end = scan(segment, bytes, n, tail);
      if (end < n) {
        file.truncate(end);
      }
      segment.end = segment.footer == null ? end : end - SegmentFooter.BYTES;
    }
  }

  /** Replays the records of one segment; returns where its intact content ends. */
  private int scan(SegmentFile segment, byte[] bytes, int size, boolean tail) {
    String name = segment.name;
    int header = segment.header.size();
    int p = header;
    while (p < size) {
      int n = RecordLayout.validAt(bytes, p, size);
      if (n > 0) {
        deliver(bytes, p);
        p += n;
        continue;
      }
      segment.footer = SegmentFooter.decodeAt(bytes, p, size);
      if (segment.footer != null) {
        return size;
      }
      if (tail && (RecordLayout.allZero(bytes, p, size) || !provenForced(bytes, p, size, header))) {
        problems.add(
            "torn tail: cut "
                + name
                + " at offset "
                + p
                + ", dropping "
                + (size - p)
                + " bytes never acknowledged as forced");
        bytesDropped += size - p;
        return p;
      }
      if (!config.salvage()) {
        throw new LogCorruptedException(name, p, "record fails its length or checksum check");
      }
      int next = nextIntact(bytes, p + 1, size, header);
      long before = continuity.end();
      problems.add(
          "salvage: skipped bytes "
              + p
              + ".."
              + next
              + " of "
              + name
              + " (records after sequence "
              + before
              + (next < size ? " up to sequence " + (RecordLayout.sequence(bytes, next) - 1) : "")
              + " lost)");
      bytesDropped += next - p;
      p = next;
    }
    return size;
  }

  private void deliver(byte[] bytes, int at) {
    long sequence = RecordLayout.sequence(bytes, at);
    continuity.record(sequence);
    if (sequence <= checkpointSequence) {
      return; // already in the checkpoint
    }
    replay.record(sequence, RecordLayout.type(bytes, at), RecordLayout.payload(bytes, at));
    recordsReplayed++;
    lastSequence = Math.max(lastSequence, sequence);
  }

  /** True if an intact record after {@code p} says {@code p} had been forced. */
  private static boolean provenForced(byte[] bytes, int p, int size, int header) {
    for (int q = p + 1; q < size; q++) {
      if (plausible(bytes, q, size, header)
          && RecordLayout.validAt(bytes, q, size) > 0
          && RecordLayout.forcedEnd(bytes, q) > p) {
        return true;
      }
    }
    return false;
  }

  private static int nextIntact(byte[] bytes, int from, int size, int header) {
    for (int q = from; q < size; q++) {
      if (plausible(bytes, q, size, header) && RecordLayout.validAt(bytes, q, size) > 0) {
        return q;
      }
    }
    return size;
  }

  /** Cheap filter before a checksum: a length in range and a forced end not after itself. */
  private static boolean plausible(byte[] bytes, int q, int size, int header) {
    if (size - q < RecordLayout.FRAME_BYTES + RecordLayout.BODY_PREFIX) {
      return false;
    }
    int body = RecordLayout.getInt(bytes, q);
    long forcedEnd = RecordLayout.forcedEnd(bytes, q);
    return body >= RecordLayout.BODY_PREFIX
        && body <= size - q - RecordLayout.FRAME_BYTES
        && forcedEnd >= header
        && forcedEnd <= q;
  }

  private Path path(String name) {
    return config.directory().resolve(name);
  }

  /** One segment file as recovery finds it. */
  private static final class SegmentFile {
    final long number;
    final String name;
    final long size;

    /** Null if the file ends inside its header. */
    final SegmentHeader header;

    /** Set by the scan: its footer, if it has one. */
    SegmentFooter footer;

    /** Where its records end: set by the scan; a segment not scanned holds its header only. */
    long end;

    SegmentFile(long number, long size, SegmentHeader header) {
      this.number = number;
      this.name = SegmentNames.segment(number);
      this.size = size;
      this.header = header;
      this.end = header == null ? 0 : header.size();
    }
  }
}
