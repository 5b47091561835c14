package dev.larder.bench.scenario;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A file that a scenario's trials read, as they will open it.
 *
 * @param path absolute path of the file
 * @param origin where the file comes from and how to name another, said when it is missing, e.g.
 *     "ships with the repository (data/traces/README.md); -P traces=DIR names another folder"
 * @param contentSha256 the first 16 hexadecimal digits of the SHA-256 of the file's content (after
 *     gzip decompression if the file is gzip-compressed), or empty if no checksum is known
 */
public record Input(Path path, String origin, String contentSha256) {

  /** Checks for nulls and an absolute path. */
  public Input {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(contentSha256, "contentSha256");
    if (!path.isAbsolute()) {
      throw new IllegalArgumentException("an input's path must be absolute: " + path);
    }
  }
}
