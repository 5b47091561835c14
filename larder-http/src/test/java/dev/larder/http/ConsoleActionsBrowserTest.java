package dev.larder.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console as a tool, in headless Chromium: a page per cache, the key browser (a pattern, pages
 * of keys), a value as text, hex and JSON with its time to live, delete and clear behind a
 * confirmation, at desktop (1440 px) and phone (390 px) widths with screenshots in {@code
 * target/console-screenshots/}; polls with credentials in the page's URL; and the attacks the
 * endpoint is designed against: a page of another origin that tries to read and write, and DNS
 * rebinding (another name resolving to 127.0.0.1).
 */
@Timeout(180)
class ConsoleActionsBrowserTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PHONE = 390;

  private static WebDriverWait waiting(WebDriver driver) {
    return new WebDriverWait(driver, Duration.ofSeconds(30));
  }

  private static Set<String> shownKeys(WebDriver driver) {
    return driver.findElements(By.cssSelector("#keys button.key")).stream()
        .map(b -> b.getDomAttribute("data-key"))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static void scan(WebDriver driver, String pattern) {
    WebElement input = driver.findElement(By.id("pattern"));
    input.clear();
    input.sendKeys(pattern);
    String before = driver.findElement(By.id("keys-status")).getText();
    driver.findElement(By.id("scan")).click();
    waiting(driver)
        .until(
            d -> {
              WebElement status = d.findElement(By.id("keys-status"));
              return status.getText().contains("matching " + pattern)
                  && !status.getText().equals(before);
            });
  }

  private static void open(WebDriver driver, String key) {
    driver.findElement(By.cssSelector("#keys button[data-key='" + key + "']")).click();
    waiting(driver).until(d -> key.equals(d.findElement(By.id("entry-key")).getText()));
  }

  private static String value(WebDriver driver, String format) {
    driver.findElement(By.cssSelector("input[name=format][value=" + format + "]")).click();
    waiting(driver)
        .until(
            d -> format.equals(d.findElement(By.id("entry-value")).getDomAttribute("data-format")));
    return driver.findElement(By.id("entry-value")).getText();
  }

  /** A 390 x 844 phone screen (a desktop window cannot be made that narrow). */
  private static void phone(ChromeDriver driver) {
    driver.executeCdpCommand(
        "Emulation.setDeviceMetricsOverride",
        Map.of("width", PHONE, "height", 844, "deviceScaleFactor", 1, "mobile", true));
    waiting(driver)
        .until(
            d ->
                ((Number) ((ChromeDriver) d).executeScript("return window.innerWidth")).intValue()
                    == PHONE);
  }

  /** Waits until the overview has polled {@code polls} more times (its "updated" time moves). */
  private static void afterPolls(WebDriver driver, int polls) {
    for (int i = 0; i < polls; i++) {
      String before = driver.findElement(By.id("updated")).getDomAttribute("data-time");
      waiting(driver)
          .until(
              d -> {
                String now = d.findElement(By.id("updated")).getDomAttribute("data-time");
                return now != null && !now.equals(before);
              });
    }
  }

  private static long pageWidth(ChromeDriver driver) {
    return ((Number) driver.executeScript("return document.documentElement.scrollWidth"))
        .longValue();
  }

  @Test
  void keyBrowserAndActionsAtDesktopAndPhoneWidths() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      f.books.put("doc", "{\"title\":\"Larder\",\"pages\":[1,2]}");
      ReadsOnlyCache sessions = new ReadsOnlyCache();
      sessions.putExpiring("session-1", "alice", Duration.ofMinutes(5));
      f.directory.add("sessions", sessions, KeyFormat.strings(), ValueFormat.utf8());
      ChromeDriver driver = Chromium.start(1440, 900);
      try {
        driver.get(f.server.uri().toString());
        waiting(driver).until(d -> d.findElements(By.cssSelector("#caches tbody tr")).size() == 4);
        Chromium.screenshot(driver, "overview-desktop");

        // A page per cache, reached from its name in the table.
        driver.findElement(By.cssSelector("tr[data-cache=books] a.cache-link")).click();
        waiting(driver).until(d -> "books".equals(d.findElement(By.id("cache-name")).getText()));
        waiting(driver)
            .until(d -> !d.findElements(By.cssSelector("#cache-figures td[data-value]")).isEmpty());
        JsonNode api = JSON.readTree(f.get("/api/caches/books").body());
        WebElement entries =
            driver.findElement(
                By.cssSelector("#cache-figures tr[data-label=entries] td:nth-child(2)"));
        waiting(driver)
            .until(d -> api.get("entries").asText().equals(entries.getDomAttribute("data-value")));

        // The first page of every key, then a pattern.
        waiting(driver)
            .until(d -> d.findElement(By.id("keys-status")).getText().contains("matching *"));
        assertEquals(50, shownKeys(driver).size(), "a page of 50");
        assertTrue(driver.findElement(By.id("more")).isDisplayed(), "more keys to scan");
        scan(driver, "book-1?");
        Set<String> expected = new TreeSet<>();
        for (int i = 10; i < 20; i++) {
          expected.add("book-" + i);
        }
        assertEquals(expected, shownKeys(driver));
        assertEquals(
            "true", driver.findElement(By.id("keys-status")).getDomAttribute("data-complete"));

        // A value as text and hex; this cache does not report time to live.
        open(driver, "book-12");
        assertEquals("title of book 12", value(driver, "text"));
        assertTrue(
            value(driver, "hex").contains("74 69 74 6c 65 20 6f 66 20 62 6f 6f 6b 20 31 32"),
            value(driver, "hex"));
        assertTrue(driver.findElement(By.id("entry-ttl")).getText().contains("not reported"));

        // JSON, pretty-printed.
        scan(driver, "doc");
        open(driver, "doc");
        assertEquals(
            "{\n  \"title\": \"Larder\",\n  \"pages\": [\n    1,\n    2\n  ]\n}",
            value(driver, "json"));
        Chromium.screenshot(driver, "cache-desktop");

        // Delete, confirmed: dismissing the confirmation deletes nothing.
        driver.findElement(By.id("delete-key")).click();
        waiting(driver).until(ExpectedConditions.alertIsPresent()).dismiss();
        assertEquals(200, f.get("/api/caches/books/entries/doc").statusCode());
        driver.findElement(By.id("delete-key")).click();
        waiting(driver).until(ExpectedConditions.alertIsPresent()).accept();
        waiting(driver)
            .until(d -> d.findElement(By.id("action-message")).getText().equals("deleted doc"));
        assertEquals(404, f.get("/api/caches/books/entries/doc").statusCode());

        // A cache that reports time to live.
        driver.get(f.server.uri() + "#/cache/sessions");
        waiting(driver).until(d -> !d.findElements(By.cssSelector("#keys button.key")).isEmpty());
        open(driver, "session-1");
        String ttl = driver.findElement(By.id("entry-ttl")).getText();
        assertTrue(ttl.startsWith("expires in 4 min") || ttl.startsWith("expires in 5 min"), ttl);

        // Phone width: nothing wider than the screen, on either page.
        phone(driver);
        assertTrue(pageWidth(driver) <= PHONE, "cache page " + pageWidth(driver) + " px wide");
        Chromium.screenshot(driver, "cache-phone");
        driver.get(f.server.uri() + "#/");
        waiting(driver).until(d -> d.findElements(By.cssSelector("#caches tbody tr")).size() == 4);
        afterPolls(driver, 2); // so the charts have drawn at this width
        assertTrue(pageWidth(driver) <= PHONE, "overview " + pageWidth(driver) + " px wide");
        Chromium.screenshot(driver, "overview-phone");

        // Clear, confirmed.
        driver.get(f.server.uri() + "#/cache/books");
        waiting(driver).until(d -> "books".equals(d.findElement(By.id("cache-name")).getText()));
        driver.findElement(By.id("clear-cache")).click();
        waiting(driver).until(ExpectedConditions.alertIsPresent()).accept();
        waiting(driver)
            .until(d -> d.findElement(By.id("action-message")).getText().equals("cleared books"));
        f.books.cleanUp();
        assertEquals(0, f.books.estimatedSize());
        assertTrue(f.blobs.estimatedSize() > 0, "only that cache");
      } finally {
        driver.quit();
      }
    }
  }

  @Test
  void anIdleChartHasRoundTicksAndWritesAreDrawnOnlyWhereCounted() throws Exception {
    try (Fixture f = Fixture.start()) {
      f.directory.add("reads-only", new ReadsOnlyCache());
      ChromeDriver driver = Chromium.start(1440, 900);
      try {
        driver.get(f.server.uri().toString());
        waiting(driver).until(d -> d.findElements(By.cssSelector("#caches tbody tr")).size() == 4);
        WebElement reads = driver.findElement(By.id("chart-reads"));
        waiting(driver).until(d -> reads.getDomAttribute("data-ticks") != null);
        assertEquals("0,1,2,3,4", reads.getDomAttribute("data-ticks"), "an idle chart's axis");
        WebElement note = driver.findElement(By.id("writes-unmeasured"));
        waiting(driver).until(d -> note.isDisplayed());
        assertEquals("not counted by reads-only, so not drawn", note.getText());
        assertEquals(
            "3",
            driver.findElement(By.id("chart-writes")).getDomAttribute("data-series"),
            "books, blobs and counters count their writes");
        // Counts with the reader's digit grouping.
        for (int i = 0; i < 1234; i++) {
          f.counters.getIfPresent((long) i);
        }
        f.books.putAll(
            java.util.stream.IntStream.range(0, 1200)
                .boxed()
                .collect(Collectors.toMap(i -> "k" + i, i -> "v")));
        WebElement cell =
            driver.findElement(By.cssSelector("tr[data-cache=books] td[data-field=entries]"));
        waiting(driver).until(d -> "1,200".equals(cell.getText()));
      } finally {
        driver.quit();
      }
    }
  }

  @Test
  void pollsWorkWithCredentialsInThePagesUrl() throws Exception {
    try (Fixture f = Fixture.start(b -> b.password("s3cret")).traffic()) {
      ChromeDriver driver = Chromium.start(1440, 900);
      try {
        driver.get("http://admin:s3cret@127.0.0.1:" + f.server.port() + "/");
        waiting(driver).until(d -> d.findElements(By.cssSelector("#caches tbody tr")).size() == 3);
        WebElement status = driver.findElement(By.id("status"));
        long first =
            Long.parseLong(driver.findElement(By.id("updated")).getDomAttribute("data-time"));
        waiting(driver)
            .until(
                d ->
                    Long.parseLong(d.findElement(By.id("updated")).getDomAttribute("data-time"))
                        > first);
        assertEquals("ok", status.getDomAttribute("data-state"), status.getText());
      } finally {
        driver.quit();
      }
    }
  }

  @Test
  void aPageOfAnotherOriginCanNeitherReadNorWrite() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      String target = "http://127.0.0.1:" + f.server.port();
      HttpServer attacker =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      byte[] page = attackPage(target).getBytes(StandardCharsets.UTF_8);
      attacker.createContext(
          "/",
          exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
          });
      attacker.start();
      ChromeDriver driver = Chromium.start(1440, 900);
      try {
        driver.get("http://127.0.0.1:" + attacker.getAddress().getPort() + "/");
        waiting(driver).until(d -> !d.findElement(By.id("done")).getText().isEmpty());
        JsonNode results = JSON.readTree(driver.findElement(By.id("done")).getText());
        for (String attempt : List.of("read", "readEntry", "put", "delete", "clear")) {
          assertTrue(results.get(attempt).asText().startsWith("blocked"), attempt + ": " + results);
        }
        assertEquals("status 0 opaque", results.get("post").asText(), results.toString());
        assertNull(f.books.getIfPresent("planted"), "nothing written");
        assertEquals("title of book 1", f.books.getIfPresent("book-1"), "nothing deleted");
        assertTrue(f.books.estimatedSize() >= 500, "nothing cleared");
      } finally {
        driver.quit();
        attacker.stop(0);
      }
    }
  }

  /** Tries, from its own origin, what a hostile page would against the console's API. */
  private static String attackPage(String target) {
    return """
        <!DOCTYPE html><html><body><pre id="done"></pre><iframe name="sink"></iframe>
        <form id="form" method="post" target="sink" action="TARGET/api/caches/books/entries/planted">
          <input name="x" value="1"></form>
        <script>
        const target = "TARGET";
        const results = {};
        async function attempt(name, request) {
          try {
            const response = await request();
            await response.text();
            results[name] = "status " + response.status + " " + response.type;
          } catch (e) {
            results[name] = "blocked: " + e.name;
          }
        }
        (async () => {
          await attempt("read", () => fetch(target + "/api/caches"));
          await attempt("readEntry", () => fetch(target + "/api/caches/books/entries/book-1"));
          await attempt("put", () => fetch(target + "/api/caches/books/entries/planted",
            { method: "PUT", body: "x", headers: { "Content-Type": "text/plain" } }));
          await attempt("delete", () => fetch(target + "/api/caches/books/entries/book-1",
            { method: "DELETE" }));
          await attempt("clear", () => fetch(target + "/api/caches/books/entries",
            { method: "DELETE" }));
          await attempt("post", () => fetch(target + "/api/caches/books/entries/planted",
            { method: "POST", mode: "no-cors", body: "x" }));
          document.getElementById("form").submit();
          await new Promise(resolve => setTimeout(resolve, 500));
          document.getElementById("done").textContent = JSON.stringify(results);
        })();
        </script></body></html>
        """
        .replace("TARGET", target);
  }

  @Test
  void dnsRebindingCannotChangeData() throws Exception {
    try (Fixture f = Fixture.start().traffic()) {
      ChromeDriver driver =
          Chromium.start(1440, 900, "--host-resolver-rules=MAP rebind.test 127.0.0.1");
      try {
        // The attacker's name now resolves to the console: its pages are same-origin with it.
        driver.get("http://rebind.test:" + f.server.port() + "/#/cache/books");
        waiting(driver).until(d -> !d.findElements(By.cssSelector("#keys button.key")).isEmpty());
        scan(driver, "book-3");
        open(driver, "book-3");
        driver.findElement(By.id("delete-key")).click();
        waiting(driver).until(ExpectedConditions.alertIsPresent()).accept();
        WebElement message = driver.findElement(By.id("action-message"));
        waiting(driver).until(d -> message.getText().startsWith("not deleted: 403"));
        assertTrue(message.getText().contains("is not this server's address"), message.getText());
        assertEquals("title of book 3", f.books.getIfPresent("book-3"));
        driver.findElement(By.id("clear-cache")).click();
        waiting(driver).until(ExpectedConditions.alertIsPresent()).accept();
        waiting(driver).until(d -> message.getText().startsWith("not cleared: 403"));
        assertTrue(f.books.estimatedSize() >= 500, "nothing cleared");
        Path shot = Chromium.screenshot(driver, "rebinding-refused");
        assertTrue(Files.size(shot) > 10_000);
      } finally {
        driver.quit();
      }
    }
  }

  @Test
  void theServerPanelSpeaksWordsAndFormatsItsFigures() throws Exception {
    try (Fixture f = Fixture.start()) {
      java.util.concurrent.atomic.AtomicLong commands =
          new java.util.concurrent.atomic.AtomicLong(97_423);
      // The figures larder-server's mount reports, in its shapes (a port off is "off").
      f.directory.section(
          "server",
          () -> {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("respPort", 6379);
            m.put("memcachePort", "off");
            m.put("connections", 3);
            m.put("commandsProcessed", commands.addAndGet(5_000));
            m.put("memoryUsed", 3L << 20);
            m.put("maxmemory", 256L << 20);
            m.put("maxmemoryPolicy", "allkeys-lfu");
            m.put("uptimeSeconds", 3_725);
            return m;
          });
      ChromeDriver driver = Chromium.start(1440, 900);
      try {
        driver.get(f.server.uri().toString());
        By panel = By.cssSelector("section[data-section=server]");
        waiting(driver).until(d -> d.findElement(panel).isDisplayed());
        waiting(driver).until(d -> !cell(d, "commandsPerSecond").getText().equals("–"));
        WebElement server = driver.findElement(panel);
        Map<String, String> shown = new java.util.LinkedHashMap<>();
        for (WebElement row : server.findElements(By.cssSelector("tr"))) {
          List<WebElement> cells = row.findElements(By.tagName("td"));
          shown.put(cells.get(0).getText(), cells.get(1).getText());
        }
        assertEquals("6379", shown.get("RESP port"), shown.toString());
        assertEquals("off", shown.get("memcached port"), shown.toString());
        assertEquals("3.0 MiB", shown.get("memory used"), shown.toString());
        assertEquals("256.0 MiB", shown.get("maxmemory"), shown.toString());
        assertEquals("1 h 2 min", shown.get("uptime"), shown.toString());
        assertTrue(shown.get("commands processed").matches("\\d{3},\\d{3}"), shown.toString());
        // 5,000 more commands a poll, a poll about every second
        String rate = shown.get("commands per second");
        assertTrue(rate.matches("\\d+(\\.\\d)?k|\\d+"), shown.toString());
        for (String label : shown.keySet()) {
          assertFalse(label.matches(".*[a-z][A-Z].*"), "a label in words: " + label);
        }
        Chromium.screenshot(driver, "server-panel");
      } finally {
        driver.quit();
      }
    }
  }

  private static WebElement cell(WebDriver driver, String label) {
    return driver.findElement(
        By.cssSelector(
            "section[data-section=server] tr[data-label=" + label + "] td:nth-child(2)"));
  }
}
