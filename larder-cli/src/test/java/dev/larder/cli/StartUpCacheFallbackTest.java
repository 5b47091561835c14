package dev.larder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code ./larder serve} relies on when it passes {@code -XX:AOTCache}: a JVM started with the
 * product's flags and a cache it cannot use (missing, damaged, made before a jar of the class path
 * changed) starts and runs as without one. Each case runs a small program from a jar of its own in
 * a child JVM, with a cache made by a training run of that same program.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StartUpCacheFallbackTest {
  /** The flags ./larder gives every product JVM (the script's product_flags). */
  private static final List<String> PRODUCT_FLAGS =
      List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow");

  @TempDir Path dir;

  @Test
  void aStaleDamagedOrMissingCacheStillStarts() throws Exception {
    Path jar = helloJar(dir.resolve("hello.jar"));
    Path cache = dir.resolve("hello.aot");
    Run training = run(List.of("-XX:AOTCacheOutput=" + cache), jar);
    assertEquals(0, training.exitCode, training.output);
    assertTrue(Files.size(cache) > 0, "the training made no cache: " + training.output);

    assertStarts(run(List.of("-XX:AOTCache=" + cache), jar), "a fresh cache");

    Path damaged = dir.resolve("damaged.aot");
    byte[] noise = new byte[64 * 1024];
    new Random(7).nextBytes(noise);
    Files.write(damaged, noise);
    assertStarts(run(List.of("-XX:AOTCache=" + damaged), jar), "a damaged cache");

    Path truncated = dir.resolve("truncated.aot");
    byte[] whole = Files.readAllBytes(cache);
    Files.write(truncated, java.util.Arrays.copyOf(whole, whole.length / 2));
    assertStarts(run(List.of("-XX:AOTCache=" + truncated), jar), "a truncated cache");

    assertStarts(
        run(List.of("-XX:AOTCache=" + dir.resolve("missing.aot")), jar), "a missing cache");

    // A jar rebuilt after the cache was made: the JVM compares its time and size.
    helloJar(jar);
    Files.setLastModifiedTime(
        jar, FileTime.fromMillis(Files.getLastModifiedTime(cache).toMillis() + 60_000));
    assertStarts(run(List.of("-XX:AOTCache=" + cache), jar), "a cache older than its jar");
  }

  private static void assertStarts(Run run, String what) {
    assertEquals(0, run.exitCode, what + ": " + run.output);
    assertTrue(run.output.contains(Hello.GREETING), what + ": " + run.output);
  }

  /** Writes a jar holding {@link Hello} alone. */
  private static Path helloJar(Path jar) throws IOException {
    String entry = Hello.class.getName().replace('.', '/') + ".class";
    try (InputStream in = Hello.class.getClassLoader().getResourceAsStream(entry);
        OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file)) {
      out.putNextEntry(new JarEntry(entry));
      in.transferTo(out);
      out.closeEntry();
    }
    return jar;
  }

  private static Run run(List<String> options, Path jar) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(PRODUCT_FLAGS);
    command.addAll(options);
    command.addAll(List.of("-cp", jar.toString(), Hello.class.getName()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] output = p.getInputStream().readAllBytes();
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("the child JVM did not end: " + command);
    }
    return new Run(p.exitValue(), new String(output, StandardCharsets.UTF_8));
  }

  private record Run(int exitCode, String output) {}

  /** The child's program: a few classes and a lambda, then a line. */
  static final class Hello {
    static final String GREETING = "started as without a cache";

    private Hello() {}

    /**
     * Prints the greeting.
     *
     * @param args none
     */
    public static void main(String[] args) {
      Runnable say = () -> System.out.println(GREETING + " " + List.of(args).size());
      say.run();
    }
  }
}
