package dev.larder.bench.scenario;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;

/**
 * The root of the Larder repository: the benchmark's shipped data ({@code data/}) and relative
 * paths given with {@code -P} are resolved against it, so that no run depends on the working
 * directory or on anything outside the repository.
 *
 * <p>Found, in this order:
 *
 * <ol>
 *   <li>the system property {@value #PROPERTY}, which the {@code ./larder} script sets to the
 *       folder it lives in;
 *   <li>the nearest folder above this class's code (the build's {@code larder-bench/target/classes}
 *       or jar) that holds the {@code larder} script and {@code larder-bench/pom.xml}, so that
 *       tests and tools started by hand find it from any working directory;
 *   <li>the nearest such folder above the working directory;
 *   <li>else the working directory.
 * </ol>
 *
 * <p>Stateless and thread-safe.
 */
public final class RepositoryRoot {

  /** The system property that names the root; {@code ./larder} passes it. */
  public static final String PROPERTY = "larder.root";

  private RepositoryRoot() {}

  /** Returns the repository's root, absolute and normalised. */
  public static Path get() {
    String given = System.getProperty(PROPERTY);
    if (given != null && !given.isBlank()) {
      return Path.of(given).toAbsolutePath().normalize();
    }
    Path cwd = Path.of("").toAbsolutePath().normalize();
    Path found = above(codeLocation());
    if (found == null) {
      found = above(cwd);
    }
    return found != null ? found : cwd;
  }

  /**
   * Returns {@code path} if absolute, else {@code path} taken from the repository's root.
   *
   * @param path a path as given on the command line
   */
  public static Path resolve(String path) {
    Path p = Path.of(path);
    return p.isAbsolute() ? p.normalize() : get().resolve(p).normalize();
  }

  /** Returns the nearest folder at or above {@code start} that looks like the repository. */
  private static Path above(Path start) {
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("larder"))
          && Files.isRegularFile(dir.resolve("larder-bench").resolve("pom.xml"))) {
        return dir;
      }
    }
    return null;
  }

  private static Path codeLocation() {
    CodeSource source = RepositoryRoot.class.getProtectionDomain().getCodeSource();
    if (source == null || source.getLocation() == null) {
      return null;
    }
    try {
      return Path.of(source.getLocation().toURI()).toAbsolutePath().normalize();
    } catch (URISyntaxException | IllegalArgumentException e) {
      return null; // not a file on the default file system: fall back to the working directory
    }
  }
}
