package dev.larder.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test does when an external tool it talks to (redis-cli, memcached, chromium...) is
 * missing: under CI it fails, because a CI run that skipped the test would be green without having
 * run it (CI's job installs every tool, {@code .ci/run}); elsewhere it is skipped with a message
 * saying what to install, so that a developer without the tool can still run the rest.
 *
 * <p>CI is recognised by the environment variable {@code CI} set to {@code true}, as GitHub
 * Actions, GitLab CI and most others set it, and as {@code CI=true bash .ci/run} does by hand.
 */
public final class RequiredTool {

  private RequiredTool() {}

  /** Returns whether the tests run under CI, where a missing tool is a failure. */
  public static boolean underCi() {
    return "true".equalsIgnoreCase(System.getenv("CI"));
  }

  /**
   * Finds an executable on the {@code PATH}.
   *
   * @param executable the command's name, e.g. {@code redis-cli}
   * @param debianPackage the package that provides it, for the message
   * @return the executable's path
   * @throws AssertionError under CI if it is missing
   * @throws org.opentest4j.TestAbortedException elsewhere if it is missing (the test is skipped)
   */
  public static Path onPath(String executable, String debianPackage) {
    Objects.requireNonNull(executable, "executable");
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":", -1)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, executable))) {
        return Path.of(dir, executable);
      }
    }
    missing(executable + " is not on the PATH", debianPackage);
    throw new AssertionError("unreachable");
  }

  /**
   * Checks that an executable is at a fixed path.
   *
   * @param executable the path
   * @param debianPackage the package that provides it, for the message
   * @return {@code executable}
   * @throws AssertionError under CI if it is missing
   * @throws org.opentest4j.TestAbortedException elsewhere if it is missing
   */
  public static Path at(Path executable, String debianPackage) {
    if (!Files.isExecutable(executable)) {
      missing("no executable " + executable, debianPackage);
    }
    return executable;
  }

  /**
   * Requires a tool that was checked some other way (e.g. a server that must also start).
   *
   * @param unavailableReason why the tool cannot be used, or null if it can
   * @param debianPackage the package that provides it, for the message
   * @throws AssertionError under CI if {@code unavailableReason} is not null
   * @throws org.opentest4j.TestAbortedException elsewhere if it is not null
   */
  public static void available(String unavailableReason, String debianPackage) {
    if (unavailableReason != null) {
      missing(unavailableReason, debianPackage);
    }
  }

  private static void missing(String what, String debianPackage) {
    missing(what, debianPackage, underCi());
  }

  /** Fails the test (under CI) or aborts it, saying what is missing and what to install. */
  static void missing(String what, String debianPackage, boolean ci) {
    String message =
        what + " (install the Debian package " + debianPackage + "; .ci/run installs it)";
    if (ci) {
      throw new AssertionError("CI=true, so this test must run, but " + message);
    }
    Assumptions.abort("skipped outside CI: " + message);
  }
}
