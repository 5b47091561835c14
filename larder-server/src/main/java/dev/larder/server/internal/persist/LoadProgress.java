package dev.larder.server.internal.persist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * How far a durable server's load has come, for INFO persistence's {@code loading_*} fields while
 * it loads (Redis's, but {@code loading_rdb_used_mem}, which a Larder checkpoint does not record).
 *
 * <p>The total is the bytes of the directory's checkpoint files and log segments when the load
 * began; the bytes loaded are those of the checkpoint entries stored in the keyspace and of the log
 * records replayed into it, so the share stays below 100% by the files' own framing (headers,
 * length fields, checksums) and reaches it only in the count of what is in the keyspace, not of
 * what was read from disk.
 *
 * <p>Thread-safe: the loading threads count, any event loop reads.
 */
public final class LoadProgress {
  private final long startMillis;
  private final long totalBytes;
  private final LongAdder loadedBytes = new LongAdder();

  private LoadProgress(long startMillis, long totalBytes) {
    this.startMillis = startMillis;
    this.totalBytes = totalBytes;
  }

  /**
   * Starts counting a load of {@code directory}.
   *
   * @param directory the log directory (need not exist yet: then nothing is to load)
   * @param nowMillis the Unix time in milliseconds the load starts
   * @throws UncheckedIOException if the directory cannot be listed
   */
  public static LoadProgress of(Path directory, long nowMillis) {
    return new LoadProgress(nowMillis, bytesToLoad(directory));
  }

  private static long bytesToLoad(Path directory) {
    if (!Files.isDirectory(directory)) {
      return 0;
    }
    long total = 0;
    try (Stream<Path> files = Files.list(directory)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        String name = p.getFileName().toString();
        if (name.endsWith(".ckp") || name.endsWith(".wal")) {
          total += sizeOf(p);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + directory, e);
    }
    return total;
  }

  private static long sizeOf(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return 0; // removed meanwhile: not to load
    }
  }

  /** Counts {@code bytes} more as loaded. */
  void loaded(long bytes) {
    loadedBytes.add(bytes);
  }

  /** Returns the bytes counted as loaded so far. */
  public long loadedBytes() {
    return loadedBytes.sum();
  }

  /** Returns the bytes to load: the checkpoint and log files when the load began. */
  public long totalBytes() {
    return totalBytes;
  }

  /**
   * Returns INFO persistence's {@code loading_*} fields, with Redis's names and meanings: the start
   * (Unix seconds), the bytes to load and loaded, the share loaded in percent, and the seconds left
   * at the rate so far (1 in the load's first second).
   *
   * @param nowMillis the Unix time in milliseconds
   */
  public Map<String, Object> info(long nowMillis) {
    long loaded = Math.min(loadedBytes(), totalBytes);
    long left = totalBytes == 0 ? 1 : totalBytes - loaded;
    long elapsed = Math.max(0, nowMillis / 1000 - startMillis / 1000);
    long eta = elapsed == 0 ? 1 : elapsed * left / (loaded + 1);
    double perc = totalBytes == 0 ? 0 : 100.0 * loaded / totalBytes;
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("loading_start_time", startMillis / 1000);
    f.put("loading_total_bytes", totalBytes);
    f.put("loading_loaded_bytes", loaded);
    f.put("loading_loaded_perc", String.format(java.util.Locale.ROOT, "%.2f", perc));
    f.put("loading_eta_seconds", eta);
    return f;
  }
}
