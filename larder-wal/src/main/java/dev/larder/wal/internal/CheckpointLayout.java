package dev.larder.wal.internal;

import dev.larder.wal.LogFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;

/**
 * The byte layout of a checkpoint file (format version 1; docs/spec/checkpoint.md).
 *
 * <pre>
 * checkpoint file  checkpoint-&lt;16 hex digits: sequence&gt;.ckp
 *  0   8 bytes  magic "LRDRCKP\0"
 *  8   u32      version (1)
 * 12   u32      reserved (0)
 * 16   u64      sequence: the state of every commit with a sequence up to this one, no later one
 * 24   entries, each: u32 length n (0 .. 2^31-2), then n bytes (opaque to the log)
 *      trailer: u32 0xFFFFFFFF, u64 entry count, u32 CRC32C of every byte before this field
 * </pre>
 *
 * All integers big-endian. A file is complete only if its trailer is present, its count matches and
 * its checksum holds; it is written as {@code .tmp}, forced, then renamed, so a complete name with
 * an incomplete body means damage, not a crash.
 */
public final class CheckpointLayout {

  /** Checkpoint magic. */
  private static final byte[] MAGIC = {'L', 'R', 'D', 'R', 'C', 'K', 'P', 0};

  /** Format version. */
  public static final int VERSION = 1;

  /** Header size. */
  public static final int HEADER_BYTES = 24;

  private static final int END_MARK = 0xFFFFFFFF;

  private CheckpointLayout() {}

  /** Streams a checkpoint into a file, buffering and checksumming as it goes. Single-threaded. */
  public static final class Writer {
    private final LogFile file;
    private final CRC32C crc = new CRC32C();
    private final byte[] buffer = new byte[1 << 16];
    private final byte[] lengthField = new byte[4];
    private int buffered;
    private long position;
    private long count;

    /**
     * @param file an empty file
     * @param sequence the checkpoint's sequence
     * @throws IOException on failure
     */
    public Writer(LogFile file, long sequence) throws IOException {
      this.file = file;
      byte[] header = new byte[HEADER_BYTES];
      System.arraycopy(MAGIC, 0, header, 0, MAGIC.length);
      RecordLayout.putInt(header, 8, VERSION);
      RecordLayout.putLong(header, 16, sequence);
      put(header, 0, header.length);
    }

    /**
     * Writes one entry.
     *
     * @param entry one entry's bytes
     * @throws IOException on failure
     */
    public void add(byte[] entry) throws IOException {
      add(entry, 0, entry.length);
    }

    /**
     * Writes one entry that lies in part of an array (copied before this returns).
     *
     * @param bytes holds the entry
     * @param offset where it starts
     * @param length its length
     * @throws IOException on failure
     */
    public void add(byte[] bytes, int offset, int length) throws IOException {
      RecordLayout.putInt(lengthField, 0, length);
      put(lengthField, 0, 4);
      put(bytes, offset, length);
      count++;
    }

    /**
     * Writes the trailer and forces the file.
     *
     * @return the entry count
     * @throws IOException on failure
     */
    public long finish() throws IOException {
      byte[] trailer = new byte[12];
      RecordLayout.putInt(trailer, 0, END_MARK);
      RecordLayout.putLong(trailer, 4, count);
      put(trailer, 0, trailer.length);
      byte[] sum = new byte[4];
      RecordLayout.putInt(sum, 0, (int) crc.getValue());
      flush();
      file.write(position, sum, 0, 4);
      file.force();
      return count;
    }

    private void put(byte[] bytes, int offset, int length) throws IOException {
      crc.update(bytes, offset, length);
      int at = offset;
      int left = length;
      while (left > 0) {
        if (buffered == buffer.length) {
          flush();
        }
        int n = Math.min(left, buffer.length - buffered);
        System.arraycopy(bytes, at, buffer, buffered, n);
        buffered += n;
        at += n;
        left -= n;
      }
    }

    private void flush() throws IOException {
      file.write(position, buffer, 0, buffered);
      position += buffered;
      buffered = 0;
    }
  }

  /**
   * Bytes read at a time: arrays of at least half a G1 region (1 to 32 MiB) are allocated outside
   * the young generation, so the young collections that run while a large checkpoint is read and
   * loaded never copy what was read (holding every entry in an array of its own made each of them
   * copy all the entries read so far).
   */
  static final int CHUNK_BYTES = 16 << 20;

  /** Receives an entry where it lies in the arrays the checkpoint was read into. */
  @FunctionalInterface
  public interface EntrySink {
    /**
     * Receives one entry.
     *
     * @param bytes holds the entry; not changed afterwards, and kept only as long as the receiver
     *     keeps it
     * @param offset where the entry starts
     * @param length its length
     */
    void accept(byte[] bytes, int offset, int length);
  }

  /**
   * A checkpoint read whole and checked: its sequence, its entry count, and its entries where they
   * lie in the arrays it was read into (an entry that straddles two of them gets an array of its
   * own).
   */
  public static final class Content {
    private final long sequence;
    private final byte[][] arrays;
    private final int[] offsets;
    private final int[] lengths;

    private Content(long sequence, byte[][] arrays, int[] offsets, int[] lengths) {
      this.sequence = sequence;
      this.arrays = arrays;
      this.offsets = offsets;
      this.lengths = lengths;
    }

    /** Returns the checkpoint's sequence. */
    public long sequence() {
      return sequence;
    }

    /** Returns its entry count. */
    public long count() {
      return lengths.length;
    }

    /**
     * Hands out every entry, in order.
     *
     * @param entries receives them
     */
    public void forEach(EntrySink entries) {
      for (int i = 0; i < lengths.length; i++) {
        entries.accept(arrays[i], offsets[i], lengths[i]);
      }
    }
  }

  /**
   * Reads a checkpoint whole and checks it before any entry can be handed out.
   *
   * @param file the file
   * @param name its name, for messages
   * @return its content, complete and intact
   * @throws CheckpointDamage if the file is incomplete or fails its checksum
   * @throws IOException on failure
   */
  public static Content read(LogFile file, String name) throws IOException {
    return read(file, name, CHUNK_BYTES);
  }

  /** As {@link #read(LogFile, String)}, reading {@code chunkBytes} at a time (tests: small). */
  static Content read(LogFile file, String name, int chunkBytes) throws IOException {
    long size = file.size();
    Chunks in = Chunks.read(file, name, size, chunkBytes);
    if (size < HEADER_BYTES) {
      throw new CheckpointDamage(name, 0, "file ends early");
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (in.get(i) != MAGIC[i]) {
        throw new CheckpointDamage(name, 0, "not a Larder checkpoint (bad magic)");
      }
    }
    if (in.getInt(8) != VERSION) {
      throw new CheckpointDamage(name, 8, "unsupported checkpoint version " + in.getInt(8));
    }
    long sequence = in.getLong(16);
    EntryList entries = new EntryList();
    long position = HEADER_BYTES;
    while (true) {
      if (position + 4 > size) {
        throw new CheckpointDamage(name, position, "file ends early");
      }
      int n = in.getInt(position);
      if (n == END_MARK) {
        if (position + 16 > size) {
          throw new CheckpointDamage(name, position + 4, "file ends early");
        }
        long declared = in.getLong(position + 4);
        if (declared != entries.size || in.crc(position + 12) != in.getInt(position + 12)) {
          throw new CheckpointDamage(name, position, "checksum or entry count mismatch");
        }
        if (position + 16 != size) {
          throw new CheckpointDamage(name, position + 16, "bytes after the trailer");
        }
        return entries.content(sequence);
      }
      if (n < 0 || n > size - position - 4) {
        throw new CheckpointDamage(name, position, "entry length " + n + " out of range");
      }
      entries.add(in, position + 4, n);
      position += 4 + n;
    }
  }

  /** The entries found so far, where they lie. */
  private static final class EntryList {
    private byte[][] arrays = new byte[64][];
    private int[] offsets = new int[64];
    private int[] lengths = new int[64];
    private int size;

    void add(Chunks in, long position, int length) {
      if (size == lengths.length) {
        arrays = java.util.Arrays.copyOf(arrays, 2 * size);
        offsets = java.util.Arrays.copyOf(offsets, 2 * size);
        lengths = java.util.Arrays.copyOf(lengths, 2 * size);
      }
      int chunk = in.chunkOf(position);
      int offset = in.offsetIn(position);
      if (offset + (long) length <= in.chunk(chunk).length) {
        arrays[size] = in.chunk(chunk);
        offsets[size] = offset;
      } else {
        arrays[size] = in.copy(position, length);
        offsets[size] = 0;
      }
      lengths[size] = length;
      size++;
    }

    Content content(long sequence) {
      return new Content(
          sequence,
          java.util.Arrays.copyOf(arrays, size),
          java.util.Arrays.copyOf(offsets, size),
          java.util.Arrays.copyOf(lengths, size));
    }
  }

  /**
   * A whole file read into arrays of {@code chunkBytes} each (the last one shorter), with the
   * CRC32C of each array's share of the bytes before the file's last four (where a complete
   * checkpoint keeps its checksum).
   *
   * <p>The arrays are read and checksummed by up to one thread per core at once, each taking the
   * next array not yet taken: a file layer's reads at positions are concurrent (the real file
   * system's are), so reading the file, the page faults of the fresh arrays and the checksum are
   * spread over the cores, which are otherwise idle until the file is checked. The pieces' sums are
   * joined with {@link Crc32cCombine}.
   */
  private static final class Chunks {
    private final byte[][] chunks;
    private final int chunkBytes;
    private final long size;
    private final int[] crcs;

    private Chunks(byte[][] chunks, int chunkBytes, long size, int[] crcs) {
      this.chunks = chunks;
      this.chunkBytes = chunkBytes;
      this.size = size;
      this.crcs = crcs;
    }

    static Chunks read(LogFile file, String name, long size, int chunkBytes) throws IOException {
      int count = (int) ((size + chunkBytes - 1) / chunkBytes);
      byte[][] chunks = new byte[count][];
      int[] crcs = new int[count];
      ChunkReader reader = new ChunkReader(file, name, size, chunkBytes, chunks, crcs);
      int helpers = Math.min(count, Runtime.getRuntime().availableProcessors()) - 1;
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < helpers; i++) {
        threads.add(Thread.ofPlatform().name("larder-wal-read").daemon().start(reader::run));
      }
      reader.run();
      boolean interrupted = false;
      for (Thread t : threads) {
        while (true) {
          try {
            t.join();
            break;
          } catch (InterruptedException e) {
            // the helpers end by themselves once the arrays are taken: wait for them all
            interrupted = true;
          }
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      reader.rethrow();
      return new Chunks(chunks, chunkBytes, size, crcs);
    }

    byte[] chunk(int c) {
      return chunks[c];
    }

    int chunkOf(long position) {
      return (int) (position / chunkBytes);
    }

    int offsetIn(long position) {
      return (int) (position % chunkBytes);
    }

    byte get(long position) {
      return chunks[chunkOf(position)][offsetIn(position)];
    }

    int getInt(long position) {
      int v = 0;
      for (int i = 0; i < 4; i++) {
        v = v << 8 | (get(position + i) & 0xFF);
      }
      return v;
    }

    long getLong(long position) {
      return (long) getInt(position) << 32 | (getInt(position + 4) & 0xFFFFFFFFL);
    }

    byte[] copy(long position, int length) {
      byte[] out = new byte[length];
      int done = 0;
      while (done < length) {
        long at = position + done;
        byte[] chunk = chunks[chunkOf(at)];
        int offset = offsetIn(at);
        int n = Math.min(length - done, chunk.length - offset);
        System.arraycopy(chunk, offset, out, done, n);
        done += n;
      }
      return out;
    }

    /** Returns the CRC32C of bytes [0, end). */
    int crc(long end) {
      if (end == size - 4) {
        // where a complete file keeps its checksum: the pieces' sums, summed as they were read
        int sum = 0;
        for (int c = 0; c < chunks.length; c++) {
          long from = (long) c * chunkBytes;
          sum = Crc32cCombine.combine(sum, crcs[c], Math.max(0, Math.min(end - from, chunkBytes)));
        }
        return sum;
      }
      CRC32C crc = new CRC32C();
      for (int c = 0; c < chunks.length && (long) c * chunkBytes < end; c++) {
        long from = (long) c * chunkBytes;
        crc.update(chunks[c], 0, (int) Math.min(chunks[c].length, end - from));
      }
      return (int) crc.getValue();
    }
  }

  /**
   * Reads the arrays of a {@link Chunks} and checksums their bytes before {@code size - 4}; run by
   * several threads, each taking the next array. The first failure is kept, and stops the others at
   * their next array.
   */
  private static final class ChunkReader {
    private final LogFile file;
    private final String name;
    private final long size;
    private final int chunkBytes;
    private final byte[][] chunks;
    private final int[] crcs;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    ChunkReader(LogFile file, String name, long size, int chunkBytes, byte[][] chunks, int[] crcs) {
      this.file = file;
      this.name = name;
      this.size = size;
      this.chunkBytes = chunkBytes;
      this.chunks = chunks;
      this.crcs = crcs;
    }

    void run() {
      for (int c = next.getAndIncrement();
          c < chunks.length && failure.get() == null;
          c = next.getAndIncrement()) {
        try {
          read(c);
        } catch (IOException | RuntimeException | Error e) {
          failure.compareAndSet(null, e);
        }
      }
    }

    private void read(int c) throws IOException {
      long at = (long) c * chunkBytes;
      int length = (int) Math.min(chunkBytes, size - at);
      byte[] chunk = new byte[length];
      int done = 0;
      while (done < length) {
        int n = file.read(at + done, chunk, done, length - done);
        if (n <= 0) {
          throw new CheckpointDamage(name, at + done, "file ends early");
        }
        done += n;
      }
      CRC32C crc = new CRC32C();
      crc.update(chunk, 0, (int) Math.max(0, Math.min(length, size - 4 - at)));
      crcs[c] = (int) crc.getValue();
      chunks[c] = chunk;
    }

    /** Throws what a reading thread met first, if any (the arrays are then incomplete). */
    void rethrow() throws IOException {
      Throwable e = failure.get();
      if (e instanceof IOException io) {
        throw io;
      }
      if (e instanceof RuntimeException r) {
        throw r;
      }
      if (e instanceof Error err) {
        throw err;
      }
    }
  }

  /** A damaged checkpoint file: names the file and the offset. */
  public static final class CheckpointDamage extends IOException {
    @java.io.Serial private static final long serialVersionUID = 1L;

    /** File name. */
    public final String file;

    /** Byte offset. */
    public final long offset;

    CheckpointDamage(String file, long offset, String detail) {
      super(detail);
      this.file = file;
      this.offset = offset;
    }
  }
}
