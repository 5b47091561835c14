package dev.larder.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removes the scratch directories scenarios and trials make for their servers and logs. */
public final class DirectoryTrees {
  private DirectoryTrees() {}

  /**
   * Deletes a directory and everything below it, deepest first; a path already gone is skipped.
   *
   * @param root the directory (or file) to remove; must not be null
   * @throws IOException if the tree cannot be walked or a file cannot be deleted
   */
  public static void delete(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
