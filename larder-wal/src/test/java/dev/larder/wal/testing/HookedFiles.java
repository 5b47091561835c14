package dev.larder.wal.testing;

import dev.larder.wal.FileLayer;
import dev.larder.wal.LogFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A file layer that runs a hook before every write, every force and every read of the files it
 * opens, then does the operation on the layer beneath: for tests that make a disk slow, or hold it.
 * Every other operation goes straight through. Thread-safe if the layer beneath and the hooks are.
 */
public final class HookedFiles implements FileLayer {

  /** Runs before an operation; may block, or throw to fail it. */
  @FunctionalInterface
  public interface Hook {
    /**
     * Called before each write or force.
     *
     * @param position the write's file offset, or -1 for a force
     * @throws IOException to fail the operation
     */
    void before(long position) throws IOException;
  }

  /** Runs before a read; may block, or throw to fail it. */
  @FunctionalInterface
  public interface ReadHook {
    /**
     * Called before each read.
     *
     * @param file the file read, as opened
     * @param position the read's file offset
     * @throws IOException to fail the read
     */
    void before(Path file, long position) throws IOException;
  }

  private final FileLayer files;
  private final Hook beforeWrite;
  private final Hook beforeForce;
  private final ReadHook beforeRead;

  /**
   * @param files the layer beneath, e.g. {@link FileLayer#standard()}
   * @param beforeWrite runs before each write, with its position
   * @param beforeForce runs before each force, with -1
   */
  public HookedFiles(FileLayer files, Hook beforeWrite, Hook beforeForce) {
    this(files, beforeWrite, beforeForce, (file, position) -> {});
  }

  /**
   * @param files the layer beneath, e.g. {@link FileLayer#standard()}
   * @param beforeWrite runs before each write, with its position
   * @param beforeForce runs before each force, with -1
   * @param beforeRead runs before each read, with the file and the position
   */
  public HookedFiles(FileLayer files, Hook beforeWrite, Hook beforeForce, ReadHook beforeRead) {
    this.files = Objects.requireNonNull(files, "files");
    this.beforeWrite = Objects.requireNonNull(beforeWrite, "beforeWrite");
    this.beforeForce = Objects.requireNonNull(beforeForce, "beforeForce");
    this.beforeRead = Objects.requireNonNull(beforeRead, "beforeRead");
  }

  /** A hook that does nothing. */
  public static final Hook NONE = position -> {};

  @Override
  public LogFile open(Path file) throws IOException {
    LogFile inner = files.open(file);
    return new LogFile() {
      @Override
      public void write(long position, byte[] bytes, int offset, int length) throws IOException {
        beforeWrite.before(position);
        inner.write(position, bytes, offset, length);
      }

      @Override
      public void force() throws IOException {
        beforeForce.before(-1);
        inner.force();
      }

      @Override
      public long size() throws IOException {
        return inner.size();
      }

      @Override
      public void truncate(long length) throws IOException {
        inner.truncate(length);
      }

      @Override
      public int read(long position, byte[] target, int offset, int length) throws IOException {
        beforeRead.before(file, position);
        return inner.read(position, target, offset, length);
      }

      @Override
      public void close() throws IOException {
        inner.close();
      }
    };
  }

  @Override
  public List<String> list(Path directory) throws IOException {
    return files.list(directory);
  }

  @Override
  public void rename(Path from, Path to) throws IOException {
    files.rename(from, to);
  }

  @Override
  public void delete(Path file) throws IOException {
    files.delete(file);
  }

  @Override
  public AutoCloseable lock(Path directory) throws IOException {
    return files.lock(directory);
  }
}
