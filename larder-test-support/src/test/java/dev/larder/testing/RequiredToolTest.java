package dev.larder.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class RequiredToolTest {

  @Test
  void aMissingToolFailsUnderCiAndSkipsElsewhereSayingWhatToInstall() {
    AssertionError failed =
        assertThrows(
            AssertionError.class, () -> RequiredTool.missing("no redis-cli", "redis-tools", true));
    assertTrue(failed.getMessage().contains("CI=true"), failed.getMessage());
    assertTrue(failed.getMessage().contains("redis-tools"), failed.getMessage());
    TestAbortedException skipped =
        assertThrows(
            TestAbortedException.class,
            () -> RequiredTool.missing("no redis-cli", "redis-tools", false));
    assertTrue(skipped.getMessage().contains("redis-tools"), skipped.getMessage());
  }

  @Test
  void aMissingToolIsReportedTheWayThisRunDoes() {
    Class<? extends Throwable> expected =
        RequiredTool.underCi() ? AssertionError.class : TestAbortedException.class;
    assertThrows(expected, () -> RequiredTool.onPath("no-such-tool-anywhere", "none"));
    assertThrows(expected, () -> RequiredTool.at(Path.of("/no/such/tool"), "none"));
    assertThrows(expected, () -> RequiredTool.available("it broke", "none"));
  }

  @Test
  void aPresentToolIsFound() {
    Path sh = RequiredTool.onPath("sh", "dash");
    assertEquals("sh", sh.getFileName().toString());
    RequiredTool.available(null, "none");
  }
}
