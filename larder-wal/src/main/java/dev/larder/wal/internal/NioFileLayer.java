package dev.larder.wal.internal;

import dev.larder.wal.FileLayer;
import dev.larder.wal.LogDirectoryLockedException;
import dev.larder.wal.LogFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
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
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    if (created) {
      forceDirectory(file.toAbsolutePath().getParent());
    }
    return new ChannelFile(channel);
  }

  @Override
  public List<String> list(Path directory) throws IOException {
    Files.createDirectories(directory);
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
    Files.createDirectories(directory);
    FileChannel channel = FileChannel.open(directory.resolve("lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE);
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

  /** A {@link LogFile} over one channel. */
  private record ChannelFile(FileChannel channel) implements LogFile {

    @Override
    public void write(long position, byte[] bytes, int offset, int length) throws IOException {
      ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
      long at = position;
      while (buffer.hasRemaining()) {
        at += channel.write(buffer, at);
      }
    }

    @Override
    public void force() throws IOException {
      channel.force(false);
    }

    @Override
    public long size() throws IOException {
      return channel.size();
    }

    @Override
    public void truncate(long length) throws IOException {
      channel.truncate(length);
      channel.force(true);
    }

    @Override
    public int read(long position, byte[] target, int offset, int length) throws IOException {
      ByteBuffer buffer = ByteBuffer.wrap(target, offset, length);
      long at = position;
      while (buffer.hasRemaining()) {
        int n = channel.read(buffer, at);
        if (n < 0) {
          break;
        }
        at += n;
      }
      return buffer.position() - offset;
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
