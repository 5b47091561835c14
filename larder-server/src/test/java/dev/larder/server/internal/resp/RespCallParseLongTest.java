package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Redis's strict decimal: what it accepts is exactly Long.parseLong's, less signs and zeros. */
class RespCallParseLongTest {
  private static long parse(String s) {
    return RespCall.parseLong(s.getBytes(StandardCharsets.ISO_8859_1));
  }

  @Test
  void acceptsEveryLongInItsCanonicalForm() {
    long[] edges = {0, 1, -1, 9, 10, -10, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1};
    for (long n : edges) {
      assertEquals(n, parse(Long.toString(n)));
    }
    SplittableRandom r = new SplittableRandom(7);
    for (int i = 0; i < 10_000; i++) {
      long n = r.nextLong() >> r.nextInt(64);
      assertEquals(n, parse(Long.toString(n)));
    }
  }

  @Test
  void refusesWhatRedisRefuses() {
    String[] bad = {
      "",
      "-",
      "+1",
      "01",
      "-0",
      "-01",
      " 1",
      "1 ",
      "1a",
      "0x10",
      "9223372036854775808",
      "-9223372036854775809",
      "99999999999999999999",
      "18446744073709551616",
      "1.0",
      "--1"
    };
    for (String s : bad) {
      RespError e = assertThrows(RespError.class, () -> parse(s), s);
      assertEquals(RespError.NOT_INTEGER, e.getMessage(), s);
    }
  }
}
