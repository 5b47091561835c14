package dev.larder.wal.internal;

import dev.larder.wal.LogCorruptedException;
import dev.larder.wal.LogGapException;
import java.nio.file.Path;
import java.util.List;

/**
 * Checks, as recovery walks the segments in number order, that the log it reads is the whole log:
 * that the first segment begins where the checkpoint (or the log, at 0) ends, that each later one
 * is numbered next and begins where the one before it ended, and that a segment whose footer names
 * a successor has one. A break means files are missing; recovery refuses with {@link
 * LogGapException} naming the files and the sequences lost, or, under salvage, reports it and goes
 * on. Not thread-safe: one recovery.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>What is checked rests on two facts the writer guarantees (see {@code LogWriter}). A segment's
 * header names the highest sequence appended before the segment was started. A segment's records
 * are written only after its predecessor was finished (last records and footer written and forced),
 * so a segment that holds records begins exactly where its predecessor's records end. {@link
 * #end()} is the highest sequence accounted for so far (the checkpoint's, the records', the
 * headers'); the next segment must begin there.
 *
 * <p>A segment created by a roll whose predecessor never got its footer (the process died first)
 * holds no records and may name a sequence the predecessor lost in the crash; recovery deletes such
 * segments before they are checked (see {@code LogRecovery}), so this class never sees them.
 *
 * <p>Format-1 segments name neither their number nor where they begin: at them only the numbering
 * is checked, and the sequences lost at a gap before one cannot be named.
 */
final class LogContinuity {

  private final Path directory;
  private final boolean salvage;
  private final List<String> problems;
  private final long checkpointSequence;
  private final String checkpointName;
  private long end;

  /**
   * @param directory the log directory, for messages
   * @param salvage report breaks instead of refusing
   * @param problems where reports go
   * @param checkpointName the checkpoint loaded, or null if none
   * @param checkpointSequence its sequence, 0 if none
   */
  LogContinuity(
      Path directory,
      boolean salvage,
      List<String> problems,
      String checkpointName,
      long checkpointSequence) {
    this.directory = directory;
    this.salvage = salvage;
    this.problems = problems;
    this.checkpointName = checkpointName;
    this.checkpointSequence = checkpointSequence;
    this.end = checkpointSequence;
  }

  /** Returns the highest sequence accounted for so far. */
  long end() {
    return end;
  }

  /** A record read (replayed or below the checkpoint). */
  void record(long sequence) {
    end = Math.max(end, sequence);
  }

  /** The directory has a checkpoint but no segment at all: the log after it is gone. */
  void noSegments() {
    if (checkpointName != null) {
      gap(
          checkpointName,
          "every log segment is missing (" + checkpointName + " needs the log after it)",
          checkpointSequence,
          -1);
    }
  }

  /**
   * The first segment read: it must begin at or before the checkpoint's sequence (0 without one).
   */
  void first(long number, SegmentHeader header) {
    if (!header.knowsPrevious() || header.previousSequence() <= checkpointSequence) {
      return;
    }
    String name = SegmentNames.segment(number);
    String what;
    if (checkpointName != null) {
      what =
          "the segments before "
              + name
              + " are missing ("
              + checkpointName
              + " covers the log up to sequence "
              + checkpointSequence
              + ")";
    } else {
      what =
          (number > 1
                  ? range(1, number - 1)
                      + ", or a checkpoint that covered "
                      + (number > 2 ? "them," : "it,")
                  : "a checkpoint")
              + " is missing (there is no "
              + "checkpoint, and the first segment "
              + name
              + " begins after sequence "
              + header.previousSequence()
              + ")";
    }
    String firstMissing =
        number == 1 ? name : SegmentNames.segment(checkpointName != null ? number - 1 : 1);
    gap(firstMissing, what, checkpointSequence, header.previousSequence());
    end = header.previousSequence();
  }

  /**
   * The next segment read, after {@code previous}: numbered next, beginning where the log so far
   * ends.
   */
  void next(long previous, long number, SegmentHeader header) {
    String name = SegmentNames.segment(number);
    long begins = header.knowsPrevious() ? header.previousSequence() : -1;
    if (begins >= 0 && begins < end) {
      String detail =
          name
              + " begins after sequence "
              + begins
              + " but the log before it"
              + " already reaches sequence "
              + end;
      if (!salvage) {
        throw new LogCorruptedException(name, 0, detail);
      }
      problems.add("salvage: " + detail + "; read as it is");
      return;
    }
    if (number != previous + 1) {
      gap(
          SegmentNames.segment(previous + 1),
          range(previous + 1, number - 1)
              + (number - previous == 2 ? " is" : " are")
              + " missing (between "
              + SegmentNames.segment(previous)
              + " and "
              + name
              + ")",
          end,
          begins);
    } else if (begins > end) {
      // Consecutive, but the first ends early: its last records (and footer) were cut off.
      String cut = SegmentNames.segment(previous);
      gap(
          cut,
          "the end of " + cut + " is missing (" + name + " begins after sequence " + begins + ")",
          end,
          begins);
    }
    end = Math.max(end, begins);
  }

  /** The newest segment has a footer: the segment it names, and any after it, are missing. */
  void footerOfNewest(long number, SegmentFooter footer) {
    String missing = SegmentNames.segment(footer.nextSegment());
    gap(
        missing,
        missing
            + " is missing, and any segment after it (the footer of "
            + SegmentNames.segment(number)
            + " says it follows)",
        end,
        -1);
  }

  /**
   * Refuses, or reports under salvage; only reports a gap that provably held no record.
   *
   * @param file the first missing file, for the exception
   * @param what what is missing
   * @param after the last sequence before the gap
   * @param upTo the last sequence lost, or -1 if it is not known (the log's newest segments are
   *     missing, or the segment after the gap is format 1)
   */
  private void gap(String file, String what, long after, long upTo) {
    if (upTo == after) {
      // Missing segments that held nothing (each begins where the one before ended): a file
      // removed, but no commit lost. Worth a line, not a refusal.
      problems.add(
          what
              + ": no record lost (the segment after the gap begins after sequence "
              + after
              + ", where the log before it ends)");
      return;
    }
    String lost =
        upTo >= 0
            ? "records after sequence " + after + " up to sequence " + upTo + " lost"
            : "any records after sequence " + after + " lost";
    if (!salvage) {
      throw new LogGapException(directory, file, what + ": " + lost);
    }
    problems.add("salvage: " + what + ": " + lost + "; opened without them");
  }

  private static String range(long first, long last) {
    return first == last
        ? SegmentNames.segment(first)
        : SegmentNames.segment(first) + " to " + SegmentNames.segment(last);
  }
}
