package dev.larder.bench.harness;

import dev.larder.bench.json.Json;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Trial;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Runs one trial in a fresh JVM and collects its rows. The child's ordinary output goes to a log
 * file; its progress lines go to {@code progress}. A child that times out, dies or prints no rows
 * yields one failed row whose reason says so and names the log.
 */
final class ForkedTrial {

  private final Path javaBinary;
  private final String classpath;

  ForkedTrial(Path javaBinary, String classpath) {
    this.javaBinary = javaBinary;
    this.classpath = classpath;
  }

  /** Returns a forker for the JVM and classpath of this process. */
  static ForkedTrial ofCurrentJvm() {
    return new ForkedTrial(
        Path.of(System.getProperty("java.home"), "bin", "java"),
        System.getProperty("java.class.path"));
  }

  List<String> command(String scenario, Trial trial, RunOptions options, List<String> flags) {
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBinary.toString());
    cmd.addAll(flags);
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add(TrialMain.class.getName());
    cmd.add(scenario);
    cmd.add(Json.write(trial.toJson()));
    cmd.add(Json.write(options.toJson()));
    return cmd;
  }

  List<Row> run(
      String scenario,
      Trial trial,
      RunOptions options,
      List<String> flags,
      int timeoutSeconds,
      Path log,
      Consumer<String> progress) {
    try {
      Files.createDirectories(log.getParent());
      try (PrintWriter logOut = new PrintWriter(Files.newBufferedWriter(log), true)) {
        return runLogged(scenario, trial, options, flags, timeoutSeconds, log, logOut, progress);
      }
    } catch (IOException e) {
      return List.of(Row.failed(trial.implementation(), "could not start the trial JVM: " + e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of(Row.failed(trial.implementation(), "interrupted"));
    }
  }

  private List<Row> runLogged(
      String scenario,
      Trial trial,
      RunOptions options,
      List<String> flags,
      int timeoutSeconds,
      Path log,
      PrintWriter logOut,
      Consumer<String> progress)
      throws IOException, InterruptedException {
    List<String> cmd = command(scenario, trial, options, flags);
    logOut.println("# " + String.join(" ", cmd));
    Process process = new ProcessBuilder(cmd).start();
    process.getOutputStream().close();
    AtomicReference<String> rowsLine = new AtomicReference<>();
    Thread out = pump(process.getInputStream(), line -> onStdout(line, rowsLine, logOut));
    Thread err = pump(process.getErrorStream(), line -> onStderr(line, logOut, progress));
    boolean finished = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    if (!finished) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    out.join(5_000);
    err.join(5_000);
    String impl = trial.implementation();
    if (!finished) {
      return List.of(Row.failed(impl, "timed out after " + timeoutSeconds + " s; log: " + log));
    }
    if (rowsLine.get() == null) {
      return List.of(
          Row.failed(
              impl, "the JVM exited with " + process.exitValue() + " and no result; log: " + log));
    }
    return parseRows(rowsLine.get(), impl);
  }

  static List<Row> parseRows(String json, String implementation) {
    try {
      Object parsed = Json.parse(json);
      List<Row> rows = new ArrayList<>();
      if (parsed instanceof List<?> list) {
        for (Object o : list) {
          if (o instanceof Map<?, ?> map) {
            @SuppressWarnings("unchecked")
            Map<String, Object> fields = (Map<String, Object>) map;
            rows.add(Row.fromMap(fields));
          }
        }
      }
      return rows.isEmpty() ? List.of(Row.failed(implementation, "empty result")) : rows;
    } catch (IllegalArgumentException e) {
      return List.of(Row.failed(implementation, "unreadable result: " + e.getMessage()));
    }
  }

  private static void onStdout(String line, AtomicReference<String> rows, PrintWriter log) {
    if (line.startsWith(TrialProtocol.ROWS)) {
      rows.set(line.substring(TrialProtocol.ROWS.length()));
    }
    synchronized (log) {
      log.println(line);
    }
  }

  private static void onStderr(String line, PrintWriter log, Consumer<String> progress) {
    if (line.startsWith(TrialProtocol.PROGRESS)) {
      progress.accept(line.substring(TrialProtocol.PROGRESS.length()));
      return;
    }
    synchronized (log) {
      log.println(line);
    }
  }

  private static Thread pump(InputStream in, Consumer<String> sink) {
    return Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try (BufferedReader reader =
                  new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                  sink.accept(line);
                }
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
  }
}
