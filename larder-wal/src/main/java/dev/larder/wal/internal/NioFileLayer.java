package dev.larder.wal.internal;

import dev.larder.wal.FileLayer;
import dev.larder.wal.LogDirectoryLockedException;
import dev.larder.wal.LogFile;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The real file system. Directory entries are made durable by forcing a channel opened on the
 * directory, which Linux and the BSDs honour; where the platform refuses to open a directory the
 * force is skipped (the rename itself is still atomic).
 */
public final class NioFileLayer implements FileLayer {

  @Override
  public LogFile open(Path file) throws IOException {
    boolean created = !Files.exists(file);
    RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw");
    if (created) {
      try {
        forceDirectory(file.toAbsolutePath().getParent());
      } catch (IOException e) {
        raf.close();
        throw e;
      }
    }
    return new StreamFile(raf);
  }

  @Override
  public List<String> list(Path directory) throws IOException {
    createDirectories(directory);
    List<String> names = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      files.filter(Files::isRegularFile).forEach(f -> names.add(f.getFileName().toString()));
    }
    names.sort(null);
    return names;
  }

  @Override
  public void rename(Path from, Path to) throws IOException {
    Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    forceDirectory(to.toAbsolutePath().getParent());
  }

  @Override
  public void delete(Path file) throws IOException {
    if (Files.deleteIfExists(file)) {
      forceDirectory(file.toAbsolutePath().getParent());
    }
  }

  @Override
  public AutoCloseable lock(Path directory) throws IOException {
    createDirectories(directory);
    FileChannel channel =
        FileChannel.open(
            directory.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      channel.close();
      throw new LogDirectoryLockedException(directory);
    }
    FileLock held = lock;
    return () -> {
      held.release();
      channel.close();
    };
  }

  private static void forceDirectory(Path directory) throws IOException {
    if (directory == null) {
      return;
    }
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    } catch (UnsupportedOperationException | java.nio.file.AccessDeniedException e) {
      // Some platforms cannot open a directory; the rename or create is still atomic there.
    }
  }

  /**
   * A {@link LogFile} over a {@link RandomAccessFile}, not a {@code FileChannel}: a channel is
   * closed for good when a thread doing I/O on it is interrupted, and the thread that writes and
   * forces the log is often a committer, that is, the application's thread (or the interval
   * policy's timer while the log closes). One interrupted request must not close the log for every
   * other. RandomAccessFile's reads, writes and {@code getFD().sync()} ignore interrupts.
   * Positioned operations seek first, so they are synchronized.
   */
  private static final class StreamFile implements LogFile {

    private final RandomAccessFile file;

    StreamFile(RandomAccessFile file) {
      this.file = file;
    }

    @Override
    public synchronized void write(long position, byte[] bytes, int offset, int length)
        throws IOException {
      file.seek(position);
      file.write(bytes, offset, length);
    }

    @Override
    public void force() throws IOException {
      file.getFD().sync();
    }

    @Override
    public synchronized long size() throws IOException {
      return file.length();
    }

    @Override
    public synchronized void truncate(long length) throws IOException {
      file.setLength(length);
      file.getFD().sync();
    }

    @Override
    public synchronized int read(long position, byte[] target, int offset, int length)
        throws IOException {
      file.seek(position);
      int total = 0;
      while (total < length) {
        int n = file.read(target, offset + total, length - total);
        if (n < 0) {
          break;
        }
        total += n;
      }
      return total;
    }

    @Override
    public void close() throws IOException {
      file.close();
    }
  }

  /** Files.createDirectories, whose refusal of a file in the way names only the path. */
  private static void createDirectories(Path directory) throws IOException {
    if (Files.exists(directory) && !Files.isDirectory(directory)) {
      throw new NotDirectoryException(directory + ": the log directory is a file");
    }
    Files.createDirectories(directory);
  }
}
