package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * SORT's weights as C's strtod reads them. The expected answers were read from redis-server 7.0.15
 * on fresh connections (RPUSH of the value and 0, then SORT): a weight it refuses is "One or more
 * scores can't be converted into double".
 */
class SortWeightTest {
  private static Double parse(String s) {
    return SortWeight.parse(s.getBytes(StandardCharsets.ISO_8859_1));
  }

  @Test
  void readsWhatStrtodReads() {
    assertEquals(0.0, parse(""));
    assertEquals(7.0, parse(" 7"));
    assertEquals(3.0, parse("\t\n3"));
    assertEquals(5.0, parse("+5"));
    assertEquals(-5.0, parse("-.5e1"));
    assertEquals(8.0, parse("0x1p3"));
    assertEquals(26.0, parse("0X1A"));
    assertEquals(0.5, parse("0x.8"));
    assertEquals(Double.POSITIVE_INFINITY, parse("infinity"));
    assertEquals(Double.NEGATIVE_INFINITY, parse("-INF"));
    assertEquals(Double.MIN_NORMAL, parse("2.2250738585072014e-308"));
    assertEquals(2.3e-308, parse("2.3e-308"));
    assertEquals(1.0, parse("1\u0000junk"), "a C string ends at its NUL");
  }

  @Test
  void refusesWhatSortRefuses() {
    for (String s :
        new String[] {
          "1 ", "1e", "0x", ".", "nan", "abc", "- 1", " ", "1e400", "-1e400", "1e-400", "1e-310"
        }) {
      assertNull(parse(s), s);
    }
  }
}
