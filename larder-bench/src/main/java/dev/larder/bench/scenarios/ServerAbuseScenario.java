package dev.larder.bench.scenarios;

import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import dev.larder.bench.server.AbuseBench;
import java.util.List;

/**
 * The resident memory of {@code ./larder serve} under a client's abuse: connections that half-send
 * large SETs and never finish, and a client that pipelines GETs of a large value and never reads,
 * as an outside tester ran them (24 connections half-sending 60 MB SETs; 500 GETs of a 4 MB value).
 * Rows per phase: the most resident memory sampled, the process's high-water mark, the bound the
 * server states for its settings, and which clients it disconnected. The server runs as a user
 * starts it, through the launcher and its JVM caps. Memory, not time: the machine's load does not
 * change the figures much.
 */
public final class ServerAbuseScenario implements Scenario {
  private static final Parameter.WholeNumber MAXMEMORY =
      new Parameter.WholeNumber("maxmemory", 1L << 20, 1L << 40, 256L << 20, 256L << 20);
  private static final Parameter.WholeNumber CONNECTIONS =
      new Parameter.WholeNumber("connections", 1, 10_000, 24, 24);
  private static final Parameter.WholeNumber SET_BYTES =
      new Parameter.WholeNumber("set-bytes", 1024, 1L << 30, 60_000_000, 60_000_000);
  private static final Parameter.WholeNumber GETS =
      new Parameter.WholeNumber("gets", 1, 1_000_000, 500, 500);
  private static final Parameter.WholeNumber GET_BYTES =
      new Parameter.WholeNumber("get-bytes", 1, 64L << 20, 4L << 20, 4L << 20);
  private static final Parameter.WholeNumber HOLD_MILLIS =
      new Parameter.WholeNumber("hold-millis", 0, 600_000, 5_000, 2_000);

  @Override
  public String name() {
    return "server-abuse";
  }

  @Override
  public String summary() {
    return "./larder serve's resident memory under half-sent large SETs and unread pipelined GETs";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(MAXMEMORY, CONNECTIONS, SET_BYTES, GETS, GET_BYTES, HOLD_MILLIS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    return Trial.eachIncluded(List.of("Larder"), options);
  }

  @Override
  public String heapSize(RunOptions options) {
    return "256m";
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return 900;
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    RunOptions o = context.options();
    return new AbuseBench(
            MAXMEMORY.get(o),
            (int) CONNECTIONS.get(o),
            SET_BYTES.get(o),
            (int) GETS.get(o),
            GET_BYTES.get(o),
            HOLD_MILLIS.get(o),
            context::progress)
        .run();
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("phase"),
            Column.of("maxmemory"),
            new Column("residentMostBytes", "resident, most sampled"),
            new Column("residentPeakBytes", "resident high-water (VmHWM)"),
            new Column("statedBoundBytes", "stated bound"),
            new Column("abusiveConnections", "abusive connections"),
            new Column("disconnected", "disconnected by the server"),
            new Column("evictedClients", "evicted_clients"),
            new Column("outputLimitDisconnections", "output-limit disconnections"),
            new Column("bystanderServed", "bystander served")),
        List.of());
  }
}
