package dev.larder.server.internal.memcache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** stats detail's per-prefix counts: what is counted, when, and the cap on prefixes. */
class PrefixStatsTest {
  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static List<String> dump(PrefixStats p) {
    List<String> lines = new ArrayList<>();
    p.dump(lines::add);
    return lines;
  }

  @Test
  void countsPerPrefixOnlyWhileOn() {
    PrefixStats p = new PrefixStats();
    p.recordSet(b("a:1"));
    assertEquals(List.of("END"), dump(p), "off by default");
    p.enable(true);
    p.recordSet(b("a:1"));
    p.recordGet(b("a:1"), true);
    p.recordGet(b("a:2"), false);
    p.recordDelete(b("a:"));
    p.recordGet(b(":x"), true);
    p.recordSet(b("nodelimiter"));
    p.recordGet(b("b:c:d"), false);
    p.enable(false);
    p.recordSet(b("a:1"));
    assertEquals(
        new TreeSet<>(
            List.of(
                "PREFIX a get 2 hit 1 set 1 del 1",
                "PREFIX  get 1 hit 1 set 0 del 0",
                "PREFIX b get 1 hit 0 set 0 del 0",
                "END")),
        new TreeSet<>(dump(p)));
    assertEquals("END", dump(p).getLast());
    p.clear();
    assertEquals(List.of("END"), dump(p));
  }

  @Test
  void prefixesBeyondTheCapAreNotCounted() {
    PrefixStats p = new PrefixStats();
    p.enable(true);
    for (int i = 0; i < PrefixStats.MAX_PREFIXES + 10; i++) {
      p.recordSet(b("p" + i + ":k"));
    }
    p.recordGet(b("p0:k"), true);
    p.recordGet(b("p" + PrefixStats.MAX_PREFIXES + ":k"), true);
    List<String> lines = dump(p);
    assertEquals(PrefixStats.MAX_PREFIXES + 1, lines.size());
    assertEquals(
        1, lines.stream().filter(l -> l.equals("PREFIX p0 get 1 hit 1 set 1 del 0")).count());
    assertEquals(
        0,
        lines.stream()
            .filter(l -> l.startsWith("PREFIX p" + PrefixStats.MAX_PREFIXES + " "))
            .count());
  }
}
