package dev.larder.bench.sessions;

import dev.larder.bench.scenario.Row;
import java.util.List;

/**
 * The published GemStone/S figures of the GemStone sessions experiment for the same experiment
 * (Seaside counter, about 250 objects or 50 KB committed per request, siege in benchmark mode),
 * quoted so that the table sets them beside ours. Not measured here: 2007 hardware (2.2 GHz
 * Opteron), raw-partition transaction logs, Apache in front; every row says which run of the
 * published table it is.
 */
final class GemStoneFigures {

  static final String NAME = "GemStone/S (published, quoted)";

  private GemStoneFigures() {}

  /** Returns the published benchmark-mode runs, one row each. */
  static List<Row> rows() {
    return List.of(
        quoted(10, 91, 100, "run 12: 1 core, 1 gem, raw tranlog, 1G SPC"),
        quoted(10, 75, 100, "run 10: 1 core, 5 gems, raw tranlog, 5G SPC"),
        quoted(100, 87, 1300, "run 11: 1 core, 5 gems, raw tranlog, 5G SPC"),
        quoted(10, 230, Double.NaN, "run 15: 4 cores, 5 gems, raw tranlog, 5G SPC"));
  }

  private static Row quoted(int clients, double requestsPerSecond, double meanMillis, String run) {
    return Row.of(NAME)
        .put("log", "on (tranlog)")
        .put("clients", clients)
        .put("requestsPerSecond", requestsPerSecond)
        .put("meanResponseMillis", Double.isNaN(meanMillis) ? null : meanMillis)
        .put("source", run);
  }
}
