package dev.larder.wal.internal;

import dev.larder.wal.FileLayer;
import dev.larder.wal.LogFile;
import java.io.IOException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.List;

/**
 * A file layer that puts the file and the operation into every I/O error of the layer beneath: the
 * operating system's "No space left on device" becomes "cannot write 32 bytes at offset 0 of
 * /data/log-0000000000000005.wal: No space left on device". The log reads and writes through one of
 * these whatever layer it is given, so an error from any layer (a simulated disk in a test) names
 * its file. The original exception is kept as the cause; a {@link NotDirectoryException}, which
 * already names its path and which callers tell apart, is passed through unchanged. Thread-safe if
 * the layer beneath is.
 */
public final class NamingFileLayer implements FileLayer {

  private final FileLayer files;

  private NamingFileLayer(FileLayer files) {
    this.files = files;
  }

  /**
   * Returns it, wrapped (once: a wrapped layer is returned as it is).
   *
   * @param files a layer
   */
  public static FileLayer wrap(FileLayer files) {
    return files instanceof NamingFileLayer ? files : new NamingFileLayer(files);
  }

  @Override
  public LogFile open(Path file) throws IOException {
    try {
      return new NamedFile(file, files.open(file));
    } catch (IOException e) {
      throw named("cannot open " + file, e);
    }
  }

  @Override
  public List<String> list(Path directory) throws IOException {
    try {
      return files.list(directory);
    } catch (IOException e) {
      throw named("cannot list the directory " + directory, e);
    }
  }

  @Override
  public void rename(Path from, Path to) throws IOException {
    try {
      files.rename(from, to);
    } catch (IOException e) {
      throw named("cannot rename " + from + " to " + to, e);
    }
  }

  @Override
  public void delete(Path file) throws IOException {
    try {
      files.delete(file);
    } catch (IOException e) {
      throw named("cannot delete " + file, e);
    }
  }

  @Override
  public AutoCloseable lock(Path directory) throws IOException {
    try {
      return files.lock(directory);
    } catch (IOException e) {
      throw named("cannot take the lock file " + directory.resolve("lock"), e);
    }
  }

  /** Returns {@code e} itself if it names its path and callers test for it, else a new one. */
  private static IOException named(String operation, IOException e) {
    if (e instanceof NotDirectoryException) {
      return e;
    }
    return new IOException(operation + ": " + e.getMessage(), e);
  }

  /** One file, its errors named. */
  private record NamedFile(Path path, LogFile file) implements LogFile {

    @Override
    public void write(long position, byte[] bytes, int offset, int length) throws IOException {
      try {
        file.write(position, bytes, offset, length);
      } catch (IOException e) {
        throw named("cannot write " + length + " bytes at offset " + position + " of " + path, e);
      }
    }

    @Override
    public void force() throws IOException {
      try {
        file.force();
      } catch (IOException e) {
        throw named("cannot force " + path + " to the device", e);
      }
    }

    @Override
    public long size() throws IOException {
      try {
        return file.size();
      } catch (IOException e) {
        throw named("cannot read the size of " + path, e);
      }
    }

    @Override
    public void truncate(long length) throws IOException {
      try {
        file.truncate(length);
      } catch (IOException e) {
        throw named("cannot truncate " + path + " to " + length + " bytes", e);
      }
    }

    @Override
    public int read(long position, byte[] target, int offset, int length) throws IOException {
      try {
        return file.read(position, target, offset, length);
      } catch (IOException e) {
        throw named("cannot read " + length + " bytes at offset " + position + " of " + path, e);
      }
    }

    @Override
    public void close() throws IOException {
      try {
        file.close();
      } catch (IOException e) {
        throw named("cannot close " + path, e);
      }
    }
  }
}
