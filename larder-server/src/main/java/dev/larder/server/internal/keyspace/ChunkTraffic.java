package dev.larder.server.internal.keyspace;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the store traffic of chunked collections: chunk and index page writes and removals, head
 * replacements by a collection command's write-back, and chunk and page reads, with the bytes
 * written and read. INFO reports them, so that the store bytes a collection command costs are read
 * off the server (bytes written per op = the difference of two reads over the commands run between
 * them) rather than estimated.
 *
 * <p>Thread-safe: every counter is a {@link LongAdder}, so the event loops that count do not share
 * a contended cache line.
 */
public final class ChunkTraffic {
  private final LongAdder chunkWrites = new LongAdder();
  private final LongAdder chunkBytesWritten = new LongAdder();
  private final LongAdder chunkRemoves = new LongAdder();
  private final LongAdder headWrites = new LongAdder();
  private final LongAdder headBytesWritten = new LongAdder();
  private final LongAdder chunkReads = new LongAdder();
  private final LongAdder chunkBytesRead = new LongAdder();

  ChunkTraffic() {}

  /** A chunk or index page of {@code bytes} stored bytes (its key not counted) was written. */
  void wrote(int bytes) {
    chunkWrites.increment();
    chunkBytesWritten.add(bytes);
  }

  /** A chunk or index page was removed from the store. */
  void removed() {
    chunkRemoves.increment();
  }

  /** A collection's head of {@code bytes} stored bytes replaced the one before it. */
  void wroteHead(int bytes) {
    headWrites.increment();
    headBytesWritten.add(bytes);
  }

  /** A chunk's or index page's payload of {@code bytes} was read out of the store. */
  void read(int bytes) {
    chunkReads.increment();
    chunkBytesRead.add(bytes);
  }

  /** Returns the counts so far. */
  public Counts counts() {
    return new Counts(
        chunkWrites.sum(),
        chunkBytesWritten.sum(),
        chunkRemoves.sum(),
        headWrites.sum(),
        headBytesWritten.sum(),
        chunkReads.sum(),
        chunkBytesRead.sum());
  }

  /**
   * The counts at one moment (each counter read on its own: a moment's figures may differ by the
   * commands running while they were read).
   *
   * @param chunkWrites chunks and index pages written
   * @param chunkBytesWritten their stored bytes (header and payload)
   * @param chunkRemoves chunks and index pages removed
   * @param headWrites heads written by collection commands' write-backs
   * @param headBytesWritten their stored bytes
   * @param chunkReads chunks and index pages read out of the store (a decoded page kept in memory
   *     and used again is not a read)
   * @param chunkBytesRead their payload bytes
   */
  public record Counts(
      long chunkWrites,
      long chunkBytesWritten,
      long chunkRemoves,
      long headWrites,
      long headBytesWritten,
      long chunkReads,
      long chunkBytesRead) {}
}
