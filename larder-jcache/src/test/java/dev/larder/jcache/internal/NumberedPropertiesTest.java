package dev.larder.jcache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import org.junit.jupiter.api.Test;

class NumberedPropertiesTest {

  @Test
  void entriesKeepTheLineTheyStartOn() {
    List<NumberedProperties.Entry> entries =
        NumberedProperties.parse(
            """
        # a comment ending in a backslash does not continue \\
        a = 1
        ! another comment

          b : two \\
              lines
        c\\ d=\\u0041
        e
        a = again
        """);
    assertEquals(
        List.of(
            new NumberedProperties.Entry("b", "two lines", 5),
            new NumberedProperties.Entry("c d", "A", 7),
            new NumberedProperties.Entry("e", "", 8),
            new NumberedProperties.Entry("a", "again", 9)),
        entries);
  }

  @Test
  void windowsAndOldMacLineEnds() {
    assertEquals(
        List.of(
            new NumberedProperties.Entry("a", "1", 1),
            new NumberedProperties.Entry("b", "2", 2),
            new NumberedProperties.Entry("c", "3", 3)),
        NumberedProperties.parse("a=1\r\nb=2\rc=3"));
  }

  @Test
  void malformedEscapeNamesTheLine() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> NumberedProperties.parse("a = 1\nb = \\u12"));
    assertTrue(e.getMessage().startsWith("line 2:"), e.getMessage());
  }

  /** Whatever the text, the keys and values are those java.util.Properties reads. */
  @Test
  void agreesWithPropertiesOnRandomText() throws IOException {
    Random random = new Random(25);
    String alphabet = "ab=: \t\f\u000b\\#!\n\r\nxyz";
    for (int round = 0; round < 2_000; round++) {
      StringBuilder text = new StringBuilder();
      int length = random.nextInt(40);
      for (int i = 0; i < length; i++) {
        text.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      Properties expected = new Properties();
      expected.load(new StringReader(text.toString()));
      Properties actual = new Properties();
      NumberedProperties.parse(text.toString())
          .forEach(entry -> actual.setProperty(entry.key(), entry.value()));
      assertEquals(
          expected,
          actual,
          () ->
              "text: "
                  + text.toString()
                      .replace("\\", "\\\\")
                      .replace("\n", "\\n")
                      .replace("\r", "\\r")
                      .replace("\t", "\\t")
                      .replace("\f", "\\f"));
    }
  }
}
