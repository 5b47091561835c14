package dev.larder.bench.hitratio;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * One trace file of {@code data/traces} (or another) and the cache sizes it is replayed at.
 *
 * @param name short name used in result rows
 * @param file path relative to the traces folder, or absolute
 * @param format how the file is laid out
 * @param sizes cache sizes in entries (at least three, taken from the literature the traces README
 *     cites, or chosen as fractions of the distinct keys where it cites none)
 * @param byteSizes byte bounds for a byte-hit-ratio run; empty if the trace carries no sizes
 */
@SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
public record TraceSpec(
    String name, String file, TraceFormat format, long[] sizes, long[] byteSizes) {

  public TraceSpec {
    if (sizes.length == 0) {
      throw new IllegalArgumentException(name + ": no sizes");
    }
  }

  TraceSpec(String name, String file, TraceFormat format, long... sizes) {
    this(name, file, format, sizes, new long[0]);
  }

  /**
   * Reads and expands the trace under {@code folder} ({@code file} may also be absolute). The file
   * may be gzip-compressed, as every file of {@code data/traces} is, or not: the gzip magic number
   * decides.
   */
  public Trace read(Path folder) throws IOException {
    Path path = folder.resolve(file);
    if (!Path.of(file).isAbsolute() && !Files.isDirectory(folder)) {
      // say which folder is missing and how to name another, not just which file
      throw new NoSuchFileException(
          folder.toString(),
          null,
          "no traces folder here (the repository ships its traces in data/traces; -P traces=DIR"
              + " names another)");
    }
    Trace.Builder builder = new Trace.Builder();
    try (InputStream raw = new BufferedInputStream(Files.newInputStream(path), 1 << 16);
        InputStream in =
            gzipped(raw)
                ? new BufferedInputStream(new GZIPInputStream(raw, 1 << 16), 1 << 16)
                : raw) {
      format.read(in, builder);
    }
    return builder.build(name);
  }

  private static boolean gzipped(InputStream in) throws IOException {
    in.mark(2);
    int first = in.read();
    int second = in.read();
    in.reset();
    return first == 0x1f && second == 0x8b;
  }
}
