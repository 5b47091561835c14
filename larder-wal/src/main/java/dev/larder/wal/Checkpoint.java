package dev.larder.wal;

import dev.larder.wal.internal.CheckpointLayout;
import dev.larder.wal.internal.SegmentNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * A checkpoint being written: the caller {@linkplain #add adds} every entry of its state as of
 * {@link #sequence()}, then {@linkplain #complete completes} it. Writers keep appending to the log
 * meanwhile. Used by one thread; abandon it with {@link #close()} if it cannot be finished.
 */
public final class Checkpoint implements AutoCloseable {

  private final WriteAheadLog log;
  private final long sequence;
  private final long keepFromSegment;
  private final Path temporary;

  /**
   * The temporary file and its writer, made by the first {@link #add} or {@link #complete} rather
   * than at {@link WriteAheadLog#beginCheckpoint}: creating a file forces its directory, and a
   * server begins a checkpoint with every writer held up.
   */
  private LogFile file;

  private CheckpointLayout.Writer writer;
  private boolean done;

  Checkpoint(WriteAheadLog log, long sequence, long keepFromSegment) {
    this.log = log;
    this.sequence = sequence;
    this.keepFromSegment = keepFromSegment;
    this.temporary = log.config().directory().resolve(SegmentNames.checkpoint(sequence) + ".tmp");
  }

  /** Returns the writer of the temporary file, creating the file (afresh) on first use. */
  private CheckpointLayout.Writer writer() throws IOException {
    if (writer == null) {
      log.files().delete(temporary);
      file = log.files().open(temporary);
      writer = new CheckpointLayout.Writer(file, sequence);
    }
    return writer;
  }

  /** Returns the sequence whose state this checkpoint holds. */
  public long sequence() {
    return sequence;
  }

  /**
   * Adds one entry to the checkpoint.
   *
   * @param entry one entry of the state; the log does not interpret it
   * @throws UncheckedIOException on failure, naming the file and the operation
   */
  public void add(byte[] entry) {
    add(entry, 0, entry.length);
  }

  /**
   * Adds one entry that lies in part of an array: its bytes are copied before this returns, so the
   * caller may reuse the array.
   *
   * @param bytes holds the entry; the log does not interpret it
   * @param offset where it starts
   * @param length its length
   * @throws IndexOutOfBoundsException if the range is not within {@code bytes}
   * @throws UncheckedIOException on failure, naming the file and the operation
   */
  public void add(byte[] bytes, int offset, int length) {
    java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
    try {
      writer().add(bytes, offset, length);
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  /**
   * Forces the checkpoint, puts it in place, then deletes older checkpoints and every log segment
   * whose records it covers.
   *
   * @return the number of entries written
   * @throws UncheckedIOException on failure (the log still holds everything; nothing is deleted)
   */
  public long complete() {
    try {
      long count = writer().finish();
      file.close();
      done = true;
      log.installCheckpoint(temporary, sequence, keepFromSegment);
      return count;
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  /** Abandons an incomplete checkpoint, deleting its temporary file. */
  @Override
  public void close() {
    if (done) {
      return;
    }
    done = true;
    if (file == null) {
      return; // nothing was written: no file was made
    }
    try {
      file.close();
      log.files().delete(temporary);
    } catch (IOException e) {
      // The temporary file is deleted by the next recovery.
    }
  }
}
