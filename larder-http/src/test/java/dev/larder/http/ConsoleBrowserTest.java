package dev.larder.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterStatus;
import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.Stacks;
import dev.larder.codec.Codecs;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import dev.larder.wal.FsyncPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser: Debian's headless Chromium driven by Selenium through the system
 * chromedriver. A server with known caches and traffic is opened; the page must list every cache
 * the API lists, with the same entries, memory used and bound, hit ratio, latency percentiles,
 * evictions, expirations and statistics flag; its charts must have drawn; the log and cluster
 * panels must stay hidden until the API reports those sections, then show what the API reports of a
 * real transaction store's log ({@code TxStore.logStatus()}) and a real one-member cluster ({@code
 * ClusterStatus}), and hide again when a section is removed. A screenshot of the whole page is
 * saved as {@code target/console.png}. Last, a cache that times nothing is added: its latency cells
 * must be hidden.
 *
 * <p>When {@code /usr/bin/chromium} or {@code /usr/bin/chromedriver} is missing: fails under CI
 * ({@code .ci/install-packages} installs them), skipped with the reason elsewhere. Selenium Manager
 * is never asked for a driver: the driver's path is given, and surefire sets {@code
 * SE_OFFLINE=true}.
 */
@Timeout(120)
class ConsoleBrowserTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern BYTES = Pattern.compile("([0-9.]+) (B|KiB|MiB|GiB|TiB)");

  @Test
  void consoleShowsWhatTheApiReports(@TempDir Path logDir) throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      ChromeDriver driver = Chromium.start(1440, 820);
      try {
        driver.get(f.server.uri().toString());
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(30));
        wait.until(d -> d.findElements(By.cssSelector("#caches tbody tr")).size() == 3);

        runTrafficWhileThePagePolls(f, Duration.ofSeconds(3));
        long quiet = System.currentTimeMillis();
        wait.until(d -> updatedAt(d.findElement(By.id("updated"))) > quiet + 200);

        JsonNode api = JSON.readTree(f.get("/api/caches").body()).get("caches");
        List<WebElement> rows = driver.findElements(By.cssSelector("#caches tbody tr"));
        assertEquals(api.size(), rows.size(), "one row per cache");
        for (int i = 0; i < api.size(); i++) {
          assertRowShows(api.get(i), rows.get(i));
        }
        // Polls update cells in place: an element read before a poll is still on the page after.
        WebElement held = rows.get(0).findElement(By.className("memory-text"));
        long before = updatedAt(driver.findElement(By.id("updated")));
        wait.until(d -> updatedAt(d.findElement(By.id("updated"))) > before);
        assertEquals(
            driver.findElements(By.className("memory-text")).get(0).getText(),
            held.getText(),
            "the memory label held across a poll is the one on the page");
        assertEquals(
            "3",
            driver.findElement(By.id("chart-hit-ratio")).getDomAttribute("data-series"),
            "the hit-ratio chart drew a line per cache");
        assertFalse(driver.findElement(By.id("section-log")).isDisplayed());
        assertFalse(driver.findElement(By.id("section-cluster")).isDisplayed());

        // The log and cluster panels, from a real transaction store and a real (one-member)
        // cluster, wired as an application wires them.
        TxCacheSpec<String, String> spec =
            TxCacheSpec.of("orders", Codecs.strings(), Codecs.strings());
        try (TxStore store =
                TxStore.builder()
                    .cache(spec)
                    .persistence(logDir)
                    .fsync(FsyncPolicy.always())
                    .build();
            ClusteredCache<String, String> member =
                ClusteredCache.builder(String.class, String.class)
                    .cluster(
                        ClusterConfig.builder()
                            .stack(Stacks.IN_PROCESS)
                            .clusterName("console-" + System.nanoTime())
                            .nodeName("node-a")
                            .segments(16)
                            .build())
                    .build()) {
          TxCache<String, String> orders = store.cache(spec);
          for (int i = 0; i < 30; i++) {
            orders.put("order-" + i, "placed");
          }
          store.checkpoint();
          orders.put("order-30", "placed");
          for (int i = 0; i < 50; i++) {
            member.put("k" + i, "v" + i);
          }
          f.directory.section("log", () -> store.logStatus().orElseThrow().figures());
          f.directory.section("cluster", () -> ClusterStatus.of(member).figures());
          wait.until(
              d ->
                  d.findElement(By.id("section-log")).isDisplayed()
                      && d.findElement(By.id("section-cluster")).isDisplayed());
          JsonNode sections = JSON.readTree(f.get("/api/caches").body()).get("sections");
          for (String[] shown :
              new String[][] {
                {"log", "directory"},
                {"log", "fsync"},
                {"log", "lastSequence"},
                {"log", "records"},
                {"log", "checkpoints"},
                {"log", "lastCheckpoint"},
                {"cluster", "members"},
                {"cluster", "memberCount"},
                {"cluster", "viewId"},
                {"cluster", "mode"},
                {"cluster", "localEntries"}
              }) {
            String expected = sections.get(shown[0]).get(shown[1]).asText();
            By cell = By.cssSelector("#section-" + shown[0] + " td[data-field=" + shown[1] + "]");
            wait.until(d -> expected.equals(d.findElement(cell).getText()));
          }
          assertEquals(
              "31",
              sections.get("log").get("lastSequence").asText(),
              "30 commits, a checkpoint, a commit");
          assertEquals("1", sections.get("cluster").get("memberCount").asText());

          // The whole page, panels included.
          Number height =
              (Number) driver.executeScript("return document.documentElement.scrollHeight");
          driver.manage().window().setSize(new Dimension(1440, Math.max(820, height.intValue())));
          Path shot = Path.of("target", "console.png");
          Files.createDirectories(shot.getParent());
          Files.write(shot, driver.getScreenshotAs(OutputType.BYTES));
          assertTrue(Files.size(shot) > 10_000, "a screenshot with content");

          f.directory.removeSection("cluster");
          wait.until(d -> !d.findElement(By.id("section-cluster")).isDisplayed());
          assertTrue(driver.findElement(By.id("section-log")).isDisplayed());
        }

        // A cache that times nothing (as larder-server's keyspace): the API leaves its
        // latencies out, and the page hides those cells instead of showing 0 or a dash.
        f.directory.add("reads-only", new ReadsOnlyCache().traffic());
        wait.until(d -> d.findElements(By.cssSelector("#caches tbody tr")).size() == 4);
        WebElement readsOnly =
            driver.findElement(By.cssSelector("#caches tr[data-cache='reads-only']"));
        WebElement books = driver.findElement(By.cssSelector("#caches tr[data-cache='books']"));
        wait.until(d -> "2".equals(field(readsOnly, "entries").getText()));
        for (String op : new String[] {"get", "put", "load"}) {
          WebElement hidden = field(readsOnly, op + "Latency");
          assertEquals("false", hidden.getDomAttribute("data-measured"), op);
          assertFalse(hidden.isDisplayed(), op + " latency of a cache that does not time it");
          assertTrue(field(books, op + "Latency").isDisplayed(), op + " latency of books");
        }
        assertTrue(
            field(readsOnly, "hitRatio").getText().startsWith("75.0"),
            field(readsOnly, "hitRatio").getText());
      } finally {
        driver.quit();
      }
    }
  }

  /** Reads and writes at a gentle, varying rate, so the charts have movement to draw. */
  private static void runTrafficWhileThePagePolls(Fixture f, Duration duration)
      throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    Thread traffic =
        Thread.ofPlatform()
            .start(
                () -> {
                  Random random = new Random(3);
                  byte[] value = new byte[1024];
                  int n = 0;
                  while (!stop.get()) {
                    for (int i = 0; i < 40; i++, n++) {
                      f.books.getIfPresent("book-" + random.nextInt(800));
                      random.nextBytes(value);
                      f.blobs.put("live-" + n, value);
                      f.blobs.getIfPresent("live-" + random.nextInt(n + 1));
                    }
                    try {
                      Thread.sleep(10 + (n / 400) % 4 * 10);
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                });
    Thread.sleep(duration.toMillis());
    stop.set(true);
    traffic.join(10_000);
    f.books.cleanUp();
    f.blobs.cleanUp();
  }

  private static long updatedAt(WebElement updated) {
    String time = updated.getDomAttribute("data-time");
    return time == null || time.isEmpty() ? 0 : Long.parseLong(time);
  }

  private static void assertRowShows(JsonNode cache, WebElement row) {
    String name = cache.get("name").asText();
    assertEquals(name, row.getDomAttribute("data-cache"));
    assertEquals(name, field(row, "name").getText());

    assertEquals(cache.get("entries").asText(), digits(field(row, "entries")), name);
    assertEquals(cache.get("entries").asText(), value(row, "entries"), name);

    WebElement memory = field(row, "memory");
    assertEquals(cache.get("memoryUsed").asText(), memory.getDomAttribute("data-value"), name);
    String memoryText = memory.findElement(By.className("memory-text")).getText();
    Matcher shown = BYTES.matcher(memoryText);
    assertTrue(shown.find(), name + ": " + memoryText);
    assertShowsBytes(cache.get("memoryUsed").asLong(), shown, name + " memory used");
    if (cache.get("maximumMemory").isNull()) {
      assertTrue(memoryText.contains("no byte bound"), memoryText);
    } else {
      assertTrue(shown.find(), name + ": " + memoryText);
      assertShowsBytes(cache.get("maximumMemory").asLong(), shown, name + " bound");
      assertEquals(1, memory.findElements(By.className("bar")).size(), name + " has a bar");
    }

    WebElement hitRatio = field(row, "hitRatio");
    if (cache.get("hitRatio").isNull()) {
      assertEquals("–", hitRatio.getText(), name);
    } else {
      double percent = 100 * cache.get("hitRatio").asDouble();
      String text = hitRatio.getText();
      assertTrue(text.endsWith("%"), text);
      assertEquals(
          percent,
          Double.parseDouble(text.substring(0, text.length() - 1)),
          0.05 + 1e-9,
          name + " hit ratio");
      assertEquals(
          cache.get("hitRatio").asDouble(), Double.parseDouble(value(row, "hitRatio")), 0.0, name);
    }

    for (String op : new String[] {"get", "put", "load"}) {
      JsonNode l = cache.get("latency").get(op);
      assertEquals(
          l.get("p50Nanos").asText() + "/" + l.get("p99Nanos").asText(),
          value(row, op + "Latency"),
          name + " " + op + " latency");
    }
    assertEquals(cache.get("evictions").asText(), digits(field(row, "evictions")), name);
    assertEquals(cache.get("expirations").asText(), digits(field(row, "expirations")), name);
    assertEquals(
        cache.get("statistics").asBoolean() ? "on" : "off",
        field(row, "statistics").getText(),
        name);
  }

  /** The page rounds to one decimal in the unit it picked; check that unit and rounding. */
  private static void assertShowsBytes(long bytes, Matcher shown, String what) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    assertEquals(units[unit], shown.group(2), what);
    assertEquals(value, Double.parseDouble(shown.group(1)), 0.05 + 1e-9, what);
  }

  /** A count as shown, without the reader's digit grouping (3,965 is 3965). */
  private static String digits(WebElement cell) {
    return cell.getText().replaceAll("[^0-9]", "");
  }

  private static WebElement field(WebElement row, String field) {
    return row.findElement(By.cssSelector("td[data-field=" + field + "]"));
  }

  private static String value(WebElement row, String field) {
    return field(row, field).getDomAttribute("data-value");
  }
}
