package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Redis glob patterns, and no exponential blow-up on hostile ones. */
class GlobPatternTest {
  private static boolean m(String pattern, String s) {
    return new GlobPattern(pattern.getBytes(StandardCharsets.ISO_8859_1))
        .matches(s.getBytes(StandardCharsets.ISO_8859_1), false);
  }

  @Test
  void redisSemantics() {
    String[][] yes = {
      {"*", ""},
      {"*", "abc"},
      {"h?llo", "hello"},
      {"h*llo", "heeeello"},
      {"h[ae]llo", "hallo"},
      {"h[^e]llo", "hallo"},
      {"h[a-b]llo", "hbllo"},
      {"a\\*b", "a*b"},
      {"*:*", "user:1"},
      {"[b-a]", "a"}
    };
    String[][] no = {
      {"h?llo", "hllo"},
      {"h[ae]llo", "hillo"},
      {"h[^e]llo", "hello"},
      {"a\\*b", "axb"},
      {"abc", "abcd"},
      {"*x", "abc"}
    };
    for (String[] c : yes) {
      assertEquals(true, m(c[0], c[1]), c[0] + " ~ " + c[1]);
    }
    for (String[] c : no) {
      assertEquals(false, m(c[0], c[1]), c[0] + " !~ " + c[1]);
    }
  }

  @Test
  @Timeout(5)
  void hostilePatternsStayLinearish() {
    String pattern = "*a".repeat(30) + "b";
    String subject = "a".repeat(5000);
    assertEquals(false, m(pattern, subject));
  }
}
