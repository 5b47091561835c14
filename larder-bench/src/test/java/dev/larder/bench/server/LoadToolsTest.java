package dev.larder.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The server bench reads the load tools' output as they print it (redis-tools 7.0, libmemcached
 * 1.0).
 */
class LoadToolsTest {

  @Test
  void redisBenchmarkCsv() throws IOException {
    String out =
        "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
            + "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n"
            + "\"SET\",\"86881.00\",\"5.100\",\"0.200\",\"4.999\",\"20.000\",\"78.700\",\"120.0\"\n"
            + "\"GET\",\"106984.00\",\"3.300\",\"0.100\",\"3.199\",\"15.000\",\"57.700\",\"99.0\"\n";
    List<LoadTools.Result> r = LoadTools.parseRedisBenchmarkCsv(out);
    assertEquals(new LoadTools.Result("SET", 86881, 4.999, 78.7), r.get(0));
    assertEquals(new LoadTools.Result("GET", 106984, 3.199, 57.7), r.get(1));
    assertThrows(IOException.class, () -> LoadTools.parseRedisBenchmarkCsv("Could not connect"));
  }

  /** Every row, named as redis-benchmark names it: LRANGE runs print their LPUSH first. */
  @Test
  void redisBenchmarkCsvEveryRow() throws IOException {
    String out =
        "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
            + "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\r\n"
            + "\"PING_INLINE\",\"90000.00\",\"0.3\",\"0.1\",\"0.271\",\"0.4\",\"0.5\",\"1.0\"\r\n"
            + "\"LPUSH (needed to benchmark LRANGE)\",\"80000.00\",\"0.3\",\"0.1\",\"0.3\","
            + "\"0.4\",\"0.6\",\"1.0\"\r\n"
            + "\"LRANGE_100 (first 100 elements)\",\"20000.00\",\"1.3\",\"0.1\",\"1.2\","
            + "\"2.4\",\"3.6\",\"9.0\"\r\n"
            + "\"MSET (10 keys)\",\"50000.00\",\"1.3\",\"0.1\",\"0.9\",\"2.4\",\"3.5\",\"9.0\"\r\n";
    List<LoadTools.Result> r = LoadTools.parseRedisBenchmarkCsv(out);
    assertEquals(
        List.of(
            new LoadTools.Result("PING_INLINE", 90000, 0.271, 0.5),
            new LoadTools.Result("LPUSH (needed to benchmark LRANGE)", 80000, 0.3, 0.6),
            new LoadTools.Result("LRANGE_100 (first 100 elements)", 20000, 1.2, 3.6),
            new LoadTools.Result("MSET (10 keys)", 50000, 0.9, 3.5)),
        r);
  }

  @Test
  void memcslapSummary() throws IOException {
    String out =
        """
            Threads connecting to servers 50
        Time to start            50 threads:                  0.030 seconds.
        --------------------------------------------------------------------
        Time to set          200000 keys by   50 threads:     8.000 seconds.
        """;
    LoadTools.Result r = LoadTools.parseMemcslap(out);
    assertEquals("SET", r.test());
    assertEquals(25_000, r.opsPerSec(), 1e-9);
    assertThrows(IOException.class, () -> LoadTools.parseMemcslap("CONNECTION FAILURE"));
  }

  @Test
  void memcaslapStatistics() throws IOException {
    String block =
        "Get Statistics\n"
            + "Type     Time(s)  Ops          TPS(ops/s)   Net(M/s)   Get_miss   Min(us)  Max(us)    "
            + "Avg(us)    Std_dev    Geo_dist  \n";
    String out =
        "get proportion: get_prop=1.00\n\u001b[1;1H\u001b[2J\n"
            + block
            + "Period   4        117896       29474        3.3        0          30       196724     "
            + "1694       4414.22    768.37\n"
            + "Global   4        117896       29474        3.3        0          30       196724     "
            + "1694       4414.22    768.37\n\nTotal Statistics\n"
            + "Global   4        999999       88888        3.3        0          30       196724     "
            + "1694       4414.22    768.37\n"
            + "cmd_get: 117947\ncmd_set: 51200\nget_misses: 0\n"
            + "Run time: 4.0s Ops: 169147 TPS: 42286 Net_rate: 4.4M/s\n";
    LoadTools.Memcaslap m = LoadTools.parseMemcaslap(out, "get");
    assertEquals(new LoadTools.Result("GET", 29474, Double.NaN, Double.NaN), m.result());
    assertEquals(117_947 + 51_200, m.operations());
    assertThrows(IOException.class, () -> LoadTools.parseMemcaslap(out, "set"));
    assertThrows(IOException.class, () -> LoadTools.parseMemcaslap("connect failed", "get"));
  }

  @Test
  void processCpuTicksFromProcStat() {
    String stat =
        "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 567 0 0 20 0 31 0"
            + " 100 0 0\n";
    assertEquals(1234 + 567, ServerProcess.parseCpuTicks(stat));
  }
}
