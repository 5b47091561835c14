package dev.larder.bench.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void writesScalarsAndEscapes() {
    assertEquals("null", Json.write(null));
    assertEquals("true", Json.write(true));
    assertEquals("42", Json.write(42L));
    assertEquals("1.5", Json.write(1.5));
    assertEquals("3", Json.write(3.0));
    assertEquals("null", Json.write(Double.NaN));
    assertEquals("\"a\\\"b\\\\c\\n\\u0001\"", Json.write("a\"b\\c\n\u0001"));
  }

  @Test
  void writesNestedStructuresInOrder() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("z", 1L);
    map.put("a", List.of("x", 2.5));
    map.put("m", Map.of());
    assertEquals("{\"z\":1,\"a\":[\"x\",2.5],\"m\":{}}", Json.write(map));
  }

  @Test
  void prettyOutputParsesBackToTheSameValue() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("scenario", "memory");
    map.put("rows", List.of(Map.of("implementation", "Larder"), Map.of("n", 3L)));
    map.put("empty", new ArrayList<>());
    assertEquals(map, Json.parse(Json.writePretty(map)));
  }

  @Test
  void roundTripsStringsWithEveryControlAndUnicodeCharacter() {
    StringBuilder sb = new StringBuilder();
    for (char c = 0; c < 0x300; c++) {
      sb.append(c);
    }
    sb.append("µ€😀");
    assertEquals(sb.toString(), Json.parse(Json.write(sb.toString())));
  }

  @Test
  void parsesNumbersAsLongOrDouble() {
    assertEquals(
        List.of(1L, -2L, 2.5, 1e20, 1.2345678901234567E+19),
        Json.parse("[1, -2, 2.5, 1e20, 12345678901234567890]"));
  }

  @Test
  void rejectsMalformedInput() {
    for (String bad :
        Arrays.asList(
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "tru",
            "\"x",
            "1 2",
            "{1:2}",
            "\"\\q\"",
            "-",
            "[".repeat(300))) {
      assertThrows(IllegalArgumentException.class, () -> Json.parse(bad), bad);
    }
  }

  @Test
  void refusesUnsupportedTypes() {
    assertThrows(IllegalArgumentException.class, () -> Json.write(new Object()));
    assertThrows(IllegalArgumentException.class, () -> Json.write(Map.of(1, 2)));
  }
}
