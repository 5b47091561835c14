package dev.larder.wal.testing;

import dev.larder.wal.FileLayer;
import dev.larder.wal.LogDirectoryLockedException;
import dev.larder.wal.LogFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * An in-memory disk for crash tests, in the manner of H2's reordered-writes test and SQLite's crash
 * tests: it remembers which writes were forced, and {@link #powerCut} decides for every write not
 * yet forced, independently and in any order, whether it reached the platter whole, not at all, or
 * torn (only some of its 512-byte sectors, or a prefix). {@link #kill} models SIGKILL instead: the
 * operating system keeps every write.
 *
 * <p>After a cut or a kill, every {@link LogFile} opened before it throws {@link IOException}, as
 * the dead process could not have written any more; open the log again to recover.
 *
 * <p>Creating, renaming and deleting files are durable at once (the log forces the directory after
 * each), so only file contents are at risk. Thread-safe: every operation is synchronized.
 */
public final class SimulatedDisk implements FileLayer {

  private static final int SECTOR = 512;

  private final Map<Path, SimFile> files = new TreeMap<>();
  private final Set<Path> locks = new HashSet<>();
  private int generation;
  private long cuts;

  /** Creates an empty disk. */
  public SimulatedDisk() {}

  /**
   * Cuts the power: every unforced write is independently kept whole, dropped, or torn, and applied
   * in a random order. Open files become unusable; locks are released.
   *
   * @param random decides the fate of each write
   */
  public synchronized void powerCut(Random random) {
    for (SimFile file : files.values()) {
      List<Write> writes = new ArrayList<>(file.unforced);
      java.util.Collections.shuffle(writes, random);
      byte[] content = file.durable;
      for (Write w : writes) {
        content =
            switch (random.nextInt(3)) {
              case 0 -> apply(content, w.position, w.bytes, 0, w.bytes.length);
              case 1 -> content;
              default -> tear(content, w, random);
            };
      }
      file.durable = content;
      file.current = content.clone();
      file.unforced.clear();
    }
    afterCrash();
  }

  /** Kills the process: every write already made survives. Open files become unusable. */
  public synchronized void kill() {
    for (SimFile file : files.values()) {
      file.durable = file.current.clone();
      file.unforced.clear();
    }
    afterCrash();
  }

  /** Returns how many cuts and kills so far. */
  public synchronized long crashes() {
    return cuts;
  }

  /**
   * Returns a copy of the file's current content (what a reader sees now), or null if absent.
   *
   * @param file a path
   */
  public synchronized byte[] content(Path file) {
    SimFile f = files.get(file);
    return f == null ? null : f.current.clone();
  }

  /**
   * Replaces a file's content durably (for tests that damage a log on purpose).
   *
   * @param file a path
   * @param content the new content
   */
  public synchronized void replace(Path file, byte[] content) {
    SimFile f = files.computeIfAbsent(file, p -> new SimFile());
    f.durable = content.clone();
    f.current = content.clone();
    f.unforced.clear();
  }

  /** Returns a deep copy of this disk's durable and current state, with no open files. */
  public synchronized SimulatedDisk copy() {
    SimulatedDisk copy = new SimulatedDisk();
    files.forEach(
        (path, f) -> {
          SimFile g = new SimFile();
          g.durable = f.durable.clone();
          g.current = f.current.clone();
          g.unforced.addAll(f.unforced);
          copy.files.put(path, g);
        });
    return copy;
  }

  private void afterCrash() {
    generation++;
    cuts++;
    locks.clear();
  }

  private static byte[] tear(byte[] content, Write w, Random random) {
    byte[] result = content;
    if (random.nextBoolean()) {
      int prefix = random.nextInt(w.bytes.length + 1);
      return apply(result, w.position, w.bytes, 0, prefix);
    }
    for (int s = 0; s < w.bytes.length; s += SECTOR) {
      if (random.nextBoolean()) {
        result = apply(result, w.position + s, w.bytes, s, Math.min(SECTOR, w.bytes.length - s));
      }
    }
    return result;
  }

  private static byte[] apply(byte[] content, long position, byte[] bytes, int from, int length) {
    int end = (int) position + length;
    byte[] result = end > content.length ? Arrays.copyOf(content, end) : content.clone();
    System.arraycopy(bytes, from, result, (int) position, length);
    return result;
  }

  @Override
  public synchronized LogFile open(Path file) {
    files.computeIfAbsent(file, p -> new SimFile());
    return new Handle(file, generation);
  }

  @Override
  public synchronized List<String> list(Path directory) {
    List<String> names = new ArrayList<>();
    for (Path p : files.keySet()) {
      if (directory.equals(p.getParent())) {
        names.add(p.getFileName().toString());
      }
    }
    names.sort(null);
    return names;
  }

  @Override
  public synchronized void rename(Path from, Path to) throws IOException {
    SimFile f = files.remove(from);
    if (f == null) {
      throw new IOException("no such file: " + from);
    }
    files.put(to, f);
  }

  @Override
  public synchronized void delete(Path file) {
    files.remove(file);
  }

  @Override
  public synchronized AutoCloseable lock(Path directory) {
    if (!locks.add(directory)) {
      throw new LogDirectoryLockedException(directory);
    }
    int at = generation;
    return () -> {
      synchronized (SimulatedDisk.this) {
        if (generation == at) {
          locks.remove(directory);
        }
      }
    };
  }

  /** A write not yet forced. */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  private record Write(long position, byte[] bytes) {}

  /** A file: what is durable, what a reader sees now, and the writes in between. */
  private static final class SimFile {
    byte[] durable = new byte[0];
    byte[] current = new byte[0];
    final List<Write> unforced = new ArrayList<>();
  }

  /** An open file; dead after a crash. */
  private final class Handle implements LogFile {
    private final Path path;
    private final int openedIn;

    Handle(Path path, int openedIn) {
      this.path = path;
      this.openedIn = openedIn;
    }

    private SimFile file() throws IOException {
      if (generation != openedIn) {
        throw new IOException("simulated crash: " + path + " is gone with its process");
      }
      SimFile f = files.get(path);
      if (f == null) {
        throw new IOException("deleted: " + path);
      }
      return f;
    }

    @Override
    public void write(long position, byte[] bytes, int offset, int length) throws IOException {
      synchronized (SimulatedDisk.this) {
        SimFile f = file();
        byte[] copy = Arrays.copyOfRange(bytes, offset, offset + length);
        f.unforced.add(new Write(position, copy));
        f.current = apply(f.current, position, copy, 0, length);
      }
    }

    @Override
    public void force() throws IOException {
      synchronized (SimulatedDisk.this) {
        SimFile f = file();
        f.durable = f.current.clone();
        f.unforced.clear();
      }
    }

    @Override
    public long size() throws IOException {
      synchronized (SimulatedDisk.this) {
        return file().current.length;
      }
    }

    @Override
    public void truncate(long length) throws IOException {
      synchronized (SimulatedDisk.this) {
        SimFile f = file();
        f.current = Arrays.copyOf(f.current, (int) Math.min(length, f.current.length));
        f.durable = f.current.clone();
        f.unforced.clear();
      }
    }

    @Override
    public int read(long position, byte[] target, int offset, int length) throws IOException {
      synchronized (SimulatedDisk.this) {
        byte[] c = file().current;
        int n = (int) Math.max(0, Math.min(length, c.length - position));
        System.arraycopy(c, (int) position, target, offset, n);
        return n;
      }
    }

    @Override
    public void close() {
      // Nothing to release: the content lives in the disk.
    }
  }
}
