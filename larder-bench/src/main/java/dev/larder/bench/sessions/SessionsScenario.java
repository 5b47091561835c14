package dev.larder.bench.sessions;

import dev.larder.bench.harness.DirectoryTrees;
import dev.larder.bench.scenario.ChartSpec;
import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The GemStone sessions experiment: an HTTP counter page where each request begins a transaction,
 * reads and replaces a session of 250 small objects (about 50 KB) and commits before answering,
 * driven as {@code siege -b -c N} drives it, for 1, 10 and 100 clients; Larder with its log under
 * {@code always} and without a log, with an entry per session object (250 writes per commit, as the
 * published GemStone run committed 250 objects) and with the session as one entry, Redis with
 * {@code appendfsync always} and without persistence (the same endpoint, sessions as hashes,
 * WATCH/MULTI/EXEC), beside the published GemStone/S figures (quoted, not measured), and Larder's
 * server with {@code --dir} and {@code appendfsync always} through Redis's client and the same
 * WATCH/MULTI/EXEC requests as Redis ("Larder server").
 *
 * <p>A quick run leaves out the one-entry-per-session layout unless {@code --only} names it.
 *
 * <p>Parameters: {@code clients} (default 1,10,100), {@code seconds} per cell (default 10, quick
 * 1), {@code sessions} (default 1000, quick 50). Before the cells, one warm-up run of 10 clients
 * (as long as a cell, at most 5 s; quick 0.5 s) lets the JIT compile the request path.
 */
public final class SessionsScenario implements Scenario {

  private static final Parameter.WholeNumbers CLIENTS =
      new Parameter.WholeNumbers(
          "clients", 1, 1000, List.of(1L, 10L, 100L), List.of(1L, 10L, 100L));
  private static final Parameter.Decimal SECONDS =
      new Parameter.Decimal("seconds", 0.1, 86_400, 10, 1);
  private static final Parameter.WholeNumber SESSIONS =
      new Parameter.WholeNumber("sessions", 1, 1_000_000, 1000, 50);

  /** Trial name to {@link Stores} kind. */
  private static final Map<String, String> STORES =
      Map.of(
          "Larder",
          "larder-always",
          "Larder log off",
          "larder-off",
          "Larder 1 entry/session",
          "larder-session-always",
          "Larder 1 entry/session log off",
          "larder-session-off",
          "Redis",
          "redis-always",
          "Redis log off",
          "redis-off",
          "Larder server",
          "larder-server-always");

  private static final List<String> ORDER =
      List.of(
          "Larder",
          "Larder log off",
          "Larder 1 entry/session",
          "Larder 1 entry/session log off",
          "Larder server",
          "Redis",
          "Redis log off",
          GemStoneFigures.NAME);

  @Override
  public String name() {
    return "sessions";
  }

  @Override
  public String summary() {
    return "GemStone sessions experiment: HTTP requests that each commit a 50 KB session, siege -b -c "
        + "1/10/100, Larder and Redis with the log on (always) and off, beside GemStone";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(CLIENTS, SECONDS, SESSIONS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<Trial> trials = new ArrayList<>();
    for (String name : ORDER) {
      // A quick run leaves out the one-entry-per-session layout unless --only names it, so that
      // it stays well under a minute (five trials, each a JVM start).
      boolean quickSkips =
          options.quick()
              && options.implementations().isEmpty()
              && name.contains("1 entry/session");
      if (options.includes(name) && !quickSkips) {
        trials.add(Trial.of(name));
      }
    }
    return trials;
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    double cells = CLIENTS.get(options).size() * (SECONDS.get(options) + 1);
    return (int) Math.max(120, 120 + 2 * cells);
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    if (trial.implementation().equals(GemStoneFigures.NAME)) {
      return GemStoneFigures.rows();
    }
    String kind = STORES.get(trial.implementation());
    if (kind.startsWith("redis")) {
      String reason = RedisServer.unavailableReason().orElse(null);
      if (reason != null) {
        return List.of(Row.unavailable(trial.implementation(), reason));
      }
    }
    RunOptions options = context.options();
    List<Long> clients = CLIENTS.get(options);
    int most = (int) clients.stream().mapToLong(Long::longValue).max().orElse(1);
    long sessions = SESSIONS.get(options);
    double seconds = SECONDS.get(options);
    Path directory = Files.createTempDirectory("larder-sessions-");
    try (Stores.Opened opened = Stores.open(kind, directory, most + 8);
        SessionEndpoint endpoint = new SessionEndpoint(opened.store(), sessions, most + 8)) {
      populate(opened.store(), sessions);
      context.progress(trial.implementation() + ": " + sessions + " sessions created");
      SiegeDriver siege = new SiegeDriver(endpoint.url());
      siege.run(Math.min(10, most), options.quick() ? 0.5 : Math.min(5, seconds));
      List<Row> rows = new ArrayList<>();
      for (long n : clients) {
        long retriesBefore = opened.store().retries();
        SiegeDriver.Result r = siege.run((int) n, seconds);
        rows.add(
            Row.of(trial.implementation())
                .put("log", kind.endsWith("always") ? "on (always)" : "off")
                .put("clients", n)
                .put("requestsPerSecond", r.requestsPerSecond())
                .put("meanResponseMillis", r.meanResponseMillis())
                .put("concurrency", r.concurrency())
                .put("longestMillis", r.longestMillis())
                .put("transactions", r.transactions())
                .put("failed", r.failed())
                .put("retries", opened.store().retries() - retriesBefore)
                .put("source", "measured, built-in siege -b -c " + n));
        context.progress(
            trial.implementation()
                + " -c "
                + n
                + ": "
                + Math.round(r.requestsPerSecond())
                + " requests/s");
      }
      return rows;
    } finally {
      DirectoryTrees.delete(directory);
    }
  }

  /** Touches every session once, from a few threads, so that measured requests replace them. */
  private static void populate(SessionStore store, long sessions) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        int first = t;
        done.add(
            pool.submit(
                () -> {
                  for (long s = first; s < sessions; s += 16) {
                    store.touch(s);
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            new Column("log", "log"),
            Column.of("clients"),
            new Column("requestsPerSecond", "requests/s"),
            new Column("meanResponseMillis", "mean response ms"),
            Column.of("concurrency"),
            new Column("longestMillis", "longest ms"),
            new Column("failed", "failed"),
            new Column("retries", "conflicts retried"),
            new Column("source", "source")),
        List.of(
            new ChartSpec(
                "",
                "Session requests per second, log on (each commits 50 KB)",
                "clients",
                "implementation",
                "requestsPerSecond",
                "requests per second",
                false,
                Map.of("log", "on (always)"))));
  }
}
