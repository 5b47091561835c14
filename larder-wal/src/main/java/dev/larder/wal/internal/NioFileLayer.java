package dev.larder.wal.internal;

import dev.larder.wal.FileLayer;
import dev.larder.wal.LogDirectoryLockedException;
import dev.larder.wal.LogFile;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
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
    return new StreamFile(raf, file);
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
   * other. RandomAccessFile's writes and {@code getFD().sync()} ignore interrupts. Positioned
   * writes seek first, so they are synchronized.
   *
   * <p>Reads do not seek: they go through a read-only {@code FileChannel} of their own, whose
   * positional reads run concurrently (several threads read a checkpoint at once). Such a channel
   * is closed by an interrupt of a thread reading through it; the read then opens another one and
   * goes on, so an interrupt fails no read, this thread's or another's, as with RandomAccessFile
   * (the interrupted thread's flag is set again when its read returns). Each call reads at most
   * {@value #READ_SLICE} bytes at a time: a channel reads into a heap array through a temporary
   * direct buffer of the read's size, which the JDK keeps for the thread.
   */
  private static final class StreamFile implements LogFile {
    private static final int READ_SLICE = 1 << 20;

    private final RandomAccessFile file;
    private final Path path;
    private volatile FileChannel reader;
    private volatile boolean closed;

    StreamFile(RandomAccessFile file, Path path) {
      this.file = file;
      this.path = path;
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
    public int read(long position, byte[] target, int offset, int length) throws IOException {
      int total = 0;
      boolean interrupted = false;
      try {
        while (total < length) {
          FileChannel channel = reader();
          ByteBuffer slice =
              ByteBuffer.wrap(target, offset + total, Math.min(READ_SLICE, length - total));
          int n;
          try {
            n = channel.read(slice, position + total);
          } catch (ClosedByInterruptException e) {
            // this thread's interrupt closed the channel: clear it for the retry, set it after
            interrupted |= Thread.interrupted();
            reopen(channel);
            continue;
          } catch (ClosedChannelException e) {
            // another reader's interrupt closed it (reopened here), or close() did (thrown here)
            reopen(channel);
            continue;
          }
          if (n < 0) {
            break;
          }
          total += n;
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      return total;
    }

    private FileChannel reader() throws IOException {
      FileChannel channel = reader;
      return channel != null ? channel : reopen(null);
    }

    /** Replaces {@code closedChannel} (null: none yet) with a new channel, unless done already. */
    @SuppressWarnings("ReferenceEquality") // the very channel that was found closed
    private synchronized FileChannel reopen(FileChannel closedChannel) throws IOException {
      if (closed) {
        throw new ClosedChannelException();
      }
      FileChannel channel = reader;
      if (channel == closedChannel || channel == null) {
        channel = FileChannel.open(path, StandardOpenOption.READ);
        reader = channel;
      }
      return channel;
    }

    @Override
    public void close() throws IOException {
      FileChannel channel;
      synchronized (this) {
        closed = true;
        channel = reader;
      }
      try {
        if (channel != null) {
          channel.close();
        }
      } finally {
        file.close();
      }
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
