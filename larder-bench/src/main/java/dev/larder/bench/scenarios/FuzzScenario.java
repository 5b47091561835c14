package dev.larder.bench.scenarios;

import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import dev.larder.server.internal.fuzz.ProtocolFuzzer;
import java.util.List;

/**
 * The server's protocol fuzzer (larder-server's {@code ProtocolFuzzer}, from its test-jar) over
 * many inputs: random and mutated RESP and memcached requests through the real decoders and
 * handlers, checking that no exception escapes, buffering and replies stay bounded and nothing
 * hangs. One trial per protocol; a broken property fails the trial with the input that broke it (in
 * the trial's log). larder-server's build runs 100,000 inputs a protocol; this runs ten million by
 * default.
 */
public final class FuzzScenario implements Scenario {
  private static final Parameter.WholeNumber INPUTS =
      new Parameter.WholeNumber("inputs", 1, 10_000_000_000L, 10_000_000, 100_000);
  private static final Parameter.WholeNumber SEED =
      new Parameter.WholeNumber("seed", 0, Long.MAX_VALUE, 1, 1);
  private static final long STEP = 1_000_000;

  @Override
  public String name() {
    return "fuzz";
  }

  @Override
  public String summary() {
    return "fuzzes the server's RESP and memcached parsers and handlers (no network)";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(INPUTS, SEED);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    return Trial.eachIncluded(List.of("RESP", "memcached"), options);
  }

  @Override
  public String heapSize(RunOptions options) {
    return "512m";
  }

  /**
   * A guard against a hang, not a deadline: RESP, the slower protocol, runs about 2,000 inputs a
   * second on a 2-core machine loaded by other builds (40,000 on a quiet one), so a thousand a
   * second is allowed.
   */
  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return (int) Math.min(Integer.MAX_VALUE, 600 + INPUTS.get(options) / 1_000);
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) {
    ProtocolFuzzer.Protocol protocol =
        trial.implementation().equals("RESP")
            ? ProtocolFuzzer.Protocol.RESP
            : ProtocolFuzzer.Protocol.MEMCACHE;
    long inputs = INPUTS.get(context.options());
    long start = System.nanoTime();
    try (ProtocolFuzzer fuzzer = new ProtocolFuzzer(protocol, SEED.get(context.options()))) {
      ProtocolFuzzer.Report r = null;
      for (long done = 0; done < inputs; done += STEP) {
        r = fuzzer.run(Math.min(STEP, inputs - done));
        context.progress("inputs", r.inputs(), inputs, "");
      }
      return List.of(
          Row.of(trial.implementation())
              .put("inputs", r.inputs())
              .put("bytes", r.bytes())
              .put("closedByServer", r.closes())
              .put("maxBuffered", r.maxBuffered())
              .put("seconds", Math.round((System.nanoTime() - start) / 1e8) / 10.0)
              .put("propertiesHeld", true));
    }
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("inputs"),
            Column.of("bytes"),
            new Column("closedByServer", "connections closed by the server"),
            new Column("maxBuffered", "most bytes a decoder held"),
            Column.of("seconds"),
            new Column("propertiesHeld", "no property broken")),
        List.of());
  }
}
