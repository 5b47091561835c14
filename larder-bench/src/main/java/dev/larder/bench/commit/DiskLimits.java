package dev.larder.bench.commit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The disk's own limits, measured on the benchmark's directory: what group commit works against.
 */
final class DiskLimits {

  private DiskLimits() {}

  /**
   * Returns forces per second with one 100-byte record written before each force.
   *
   * @param directory where to write
   * @param seconds how long
   * @throws IOException on failure
   */
  static double forcesPerSecond(Path directory, double seconds) throws IOException {
    try (FileChannel channel = open(directory.resolve("disk-forces.bin"))) {
      ByteBuffer record = ByteBuffer.allocate(100);
      long end = System.nanoTime() + (long) (seconds * 1e9);
      long start = System.nanoTime();
      long forces = 0;
      while (System.nanoTime() < end) {
        record.clear();
        channel.write(record);
        channel.force(false);
        forces++;
      }
      return forces / ((System.nanoTime() - start) / 1e9);
    }
  }

  /**
   * Returns MB/s of sequential 1 MiB writes, each forced.
   *
   * @param directory where to write
   * @param seconds how long
   * @throws IOException on failure
   */
  static double forcedMegabytesPerSecond(Path directory, double seconds) throws IOException {
    try (FileChannel channel = open(directory.resolve("disk-bandwidth.bin"))) {
      ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
      long end = System.nanoTime() + (long) (seconds * 1e9);
      long start = System.nanoTime();
      long bytes = 0;
      while (System.nanoTime() < end) {
        chunk.clear();
        bytes += channel.write(chunk);
        channel.force(false);
      }
      return bytes / 1e6 / ((System.nanoTime() - start) / 1e9);
    }
  }

  private static FileChannel open(Path file) throws IOException {
    return FileChannel.open(
        file,
        StandardOpenOption.CREATE,
        StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING);
  }
}
