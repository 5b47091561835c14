package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * larder-http mounted in the server: {@code /api/caches} and {@code /metrics} report the keyspace
 * with the figures {@code INFO}, {@code DBSIZE} and {@code CONFIG GET} give over RESP, before and
 * after {@code CONFIG SET maxmemory} rebuilds the keyspace's cache, and leave out what the server
 * does not measure (puts, removals, loads, latencies); REST reads and writes what RESP sees; the
 * HTTP side asks for the server's password.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HttpMountTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static LarderServer start(String... settings) throws IOException {
    Map<String, String> m =
        new HashMap<>(Map.of("resp-port", "0", "memcache-port", "-1", "http-port", "0"));
    for (int i = 0; i < settings.length; i += 2) {
      m.put(settings[i], settings[i + 1]);
    }
    return LarderServer.start(ServerConfig.of(m));
  }

  private static Jedis jedis(LarderServer server) {
    return new Jedis(
        new HostAndPort("127.0.0.1", server.respPort()),
        DefaultJedisClientConfig.builder().timeoutMillis(20_000).build());
  }

  @Test
  void figuresMatchRespAndFollowTheMaxmemoryRebuild() throws Exception {
    try (LarderServer server = start("maxmemory", "8mb");
        Jedis j = jedis(server)) {
      assertTrue(server.httpPort() > 0);
      String value = "v".repeat(100);
      for (int i = 0; i < 200; i++) {
        j.set("k" + i, value + i);
      }
      j.hset("h", "field", "x");
      for (int i = 0; i < 100; i++) {
        assertEquals(value + i, j.get("k" + i));
      }
      for (int i = 0; i < 50; i++) {
        assertEquals(null, j.get("missing" + i));
      }
      checkAgainstResp(server, j, 8L << 20);

      // REST reads and writes database 0, as RESP sees it.
      Reply got = http(server, "GET", "/api/caches/keyspace/entries/k7", null, null);
      assertEquals(200, got.status());
      assertArrayEquals((value + 7).getBytes(StandardCharsets.UTF_8), got.body());
      assertEquals(
          204,
          http(
                  server,
                  "PUT",
                  "/api/caches/keyspace/entries/from%20http",
                  "hello".getBytes(StandardCharsets.UTF_8),
                  null)
              .status());
      assertEquals("hello", j.get("from http"));
      assertEquals(
          409,
          http(server, "GET", "/api/caches/keyspace/entries/h", null, null).status(),
          "a hash is not a string");
      assertEquals(
          204,
          http(server, "DELETE", "/api/caches/keyspace/entries/from%20http", null, null).status());
      assertFalse(j.exists("from http"));

      // CONFIG SET maxmemory rebuilds the keyspace's cache; HTTP follows it.
      assertEquals("OK", j.configSet("maxmemory", "2mb"));
      j.get("k1");
      j.get("nope");
      checkAgainstResp(server, j, 2L << 20);
      assertEquals(
          200, http(server, "GET", "/api/caches/keyspace/entries/k1", null, null).status());

      // Rebuilds while the API and the scrape are polled: never an error, never a missing cache.
      ExecutorService poller = Executors.newSingleThreadExecutor();
      AtomicBoolean stop = new AtomicBoolean();
      try {
        Future<Integer> polls =
            poller.submit(
                () -> {
                  int n = 0;
                  while (!stop.get() && n < 5_000) {
                    Reply r =
                        http(server, "GET", n % 2 == 0 ? "/api/caches" : "/metrics", null, null);
                    assertEquals(200, r.status(), r.text());
                    if (n % 2 == 0) {
                      assertEquals(
                          "keyspace",
                          JSON.readTree(r.body()).get("caches").get(0).get("name").asText());
                    }
                    n++;
                  }
                  return n;
                });
        for (int i = 0; i < 12; i++) {
          assertEquals("OK", j.configSet("maxmemory", (i % 2 == 0 ? 3 : 2) + "mb"));
          j.set("during" + i, value);
        }
        stop.set(true);
        assertTrue(polls.get(60, TimeUnit.SECONDS) > 0);
      } finally {
        stop.set(true);
        poller.shutdownNow();
      }
      checkAgainstResp(server, j, 2L << 20);
    }
  }

  /** With the server idle, every figure the API and the scrape give equals RESP's. */
  private static void checkAgainstResp(LarderServer server, Jedis j, long bound)
      throws IOException {
    Map<String, String> info = info(j.info());
    assertEquals(Long.toString(bound), j.configGet("maxmemory").get("maxmemory"));
    long hits = Long.parseLong(info.get("keyspace_hits"));
    long misses = Long.parseLong(info.get("keyspace_misses"));
    long evicted = Long.parseLong(info.get("evicted_keys"));
    long used = Long.parseLong(info.get("used_memory"));
    long keys = j.dbSize();

    Reply api = http(server, "GET", "/api/caches", null, null);
    assertEquals(200, api.status(), api.text());
    JsonNode caches = JSON.readTree(api.body()).get("caches");
    assertEquals(1, caches.size());
    JsonNode ks = caches.get(0);
    assertEquals("keyspace", ks.get("name").asText());
    assertEquals(bound, ks.get("maximumMemory").asLong());
    assertEquals(hits, ks.get("hits").asLong());
    assertEquals(misses, ks.get("misses").asLong());
    assertEquals(evicted, ks.get("evictions").asLong());
    assertEquals(used, ks.get("memoryUsed").asLong());
    assertTrue(used <= bound, used + " > " + bound);
    assertEquals(keys, ks.get("entries").asLong(), "DBSIZE (only database 0 is used)");
    assertTrue(ks.get("statistics").asBoolean());
    assertEquals("application/octet-stream", ks.get("rest").asText());
    // The server counts no writes, removals or loads and times nothing: left out, not 0.
    for (String unmeasured : new String[] {"puts", "removals", "loadSuccesses", "loadFailures"}) {
      assertFalse(ks.has(unmeasured), unmeasured + " in " + ks);
    }
    assertEquals(0, ks.get("latency").size(), "latencies in " + ks);
    JsonNode section = JSON.readTree(api.body()).get("sections").get("server");
    assertEquals(server.respPort(), section.get("respPort").asInt());

    Reply scrape = http(server, "GET", "/metrics", null, null);
    assertEquals(200, scrape.status());
    String text = scrape.text();
    assertEquals(hits, sample(text, "cache_gets_total", "result=\"hit\""));
    assertEquals(misses, sample(text, "cache_gets_total", "result=\"miss\""));
    assertEquals(bound, sample(text, "larder_cache_memory_max_bytes", null));
    assertEquals(used, sample(text, "larder_cache_memory_used_bytes", null));
    assertEquals(keys, sample(text, "cache_size", null));
    for (String unmeasured :
        new String[] {"cache_puts_total", "cache_load_total", "larder_cache_latency_seconds"}) {
      assertTrue(samples(text, unmeasured, null).isEmpty(), unmeasured + " in\n" + text);
    }
    assertTrue(
        samples(text, "larder_cache_removals_total", "cause=\"explicit\"").isEmpty(),
        "explicit removals in\n" + text);
  }

  @Test
  void theHttpSideAsksForTheServersPassword() throws Exception {
    try (LarderServer server = start("requirepass", "s3cret")) {
      assertEquals(401, http(server, "GET", "/api/caches", null, null).status());
      assertEquals(401, http(server, "GET", "/metrics", null, null).status());
      assertEquals(401, http(server, "GET", "/", null, null).status());
      assertEquals(401, http(server, "GET", "/api/caches", null, basic("x:wrong")).status());
      assertEquals(
          401,
          http(
                  server,
                  "PUT",
                  "/api/caches/keyspace/entries/k",
                  "v".getBytes(StandardCharsets.UTF_8),
                  null)
              .status());
      assertEquals(200, http(server, "GET", "/api/caches", null, basic("any:s3cret")).status());
      assertEquals(200, http(server, "GET", "/metrics", null, "Bearer s3cret").status());
      try (Jedis j = jedis(server)) {
        assertThrows(JedisDataException.class, () -> j.get("k"), "RESP wants AUTH too");
        j.auth("s3cret");
        assertEquals(null, j.get("k"), "the refused PUT stored nothing");
      }
    }
  }

  @Test
  void theServerPanelAndItsMetersAgreeWithInfo() throws Exception {
    try (LarderServer server = start();
        Jedis j = jedis(server)) {
      for (int i = 0; i < 50; i++) {
        j.set("k" + i, "v" + i);
      }
      JsonNode panel =
          JSON.readTree(http(server, "GET", "/api/caches", null, null).body())
              .get("sections")
              .get("server");
      String metrics = http(server, "GET", "/metrics", null, null).text();
      Map<String, String> info = info(j.info());

      assertEquals(server.respPort(), panel.get("respPort").asInt());
      assertEquals("off", panel.get("memcachePort").asText(), "a port that is off, not 0");
      assertEquals(Long.parseLong(info.get("used_memory")), panel.get("memoryUsed").asLong());
      assertEquals(Long.parseLong(info.get("maxmemory")), panel.get("maxmemory").asLong());
      assertEquals(1, panel.get("connections").asInt());
      long commands = Long.parseLong(info.get("total_commands_processed"));
      assertTrue(
          panel.get("commandsProcessed").asLong() >= 50
              && panel.get("commandsProcessed").asLong() <= commands,
          panel.toString());

      assertEquals(1, unlabelled(metrics, "larder_server_connections"));
      assertEquals(
          Long.parseLong(info.get("total_connections_received")),
          unlabelled(metrics, "larder_server_connections_received_total"));
      assertEquals(0, unlabelled(metrics, "larder_server_connections_rejected_total"));
      long scraped = unlabelled(metrics, "larder_server_commands_total");
      assertTrue(scraped >= 50 && scraped <= commands, scraped + " of " + commands);
      assertTrue(unlabelled(metrics, "larder_server_uptime_seconds") >= 0);
    }
  }

  /** The value of a sample without labels, e.g. {@code larder_server_connections 1.0}. */
  private static long unlabelled(String text, String name) {
    Matcher m =
        Pattern.compile("^" + Pattern.quote(name) + " (\\S+)$", Pattern.MULTILINE).matcher(text);
    assertTrue(m.find(), name + " in\n" + text);
    return (long) Double.parseDouble(m.group(1));
  }

  @Test
  void changesAreAcceptedUnderTheHostNamesTheSettingLists() throws Exception {
    try (LarderServer server = start("http-host-names", "Cache01.Example, other.example")) {
      int port = server.httpPort();
      assertTrue(rawPut(server, "cache01.example:" + port, "a").startsWith("HTTP/1.1 204"));
      assertTrue(rawPut(server, "other.example", "b").startsWith("HTTP/1.1 204"));
      assertTrue(
          rawPut(server, "127.0.0.1:" + port, "c").startsWith("HTTP/1.1 204"), "its own address");
      String refused = rawPut(server, "rebind.example:" + port, "d");
      assertTrue(refused.startsWith("HTTP/1.1 403"), refused);
      assertTrue(refused.contains("hostNames"), refused);
      assertEquals(
          404,
          http(server, "GET", "/api/caches/keyspace/entries/d", null, null).status(),
          "nothing stored under a name not listed");
    }
    try (LarderServer server = start()) {
      assertTrue(
          rawPut(server, "cache01.example:" + server.httpPort(), "a").startsWith("HTTP/1.1 403"),
          "not listed by default");
    }
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ServerConfig.of(Map.of("http-host-names", "cache01.example:8379")));
    assertTrue(e.getMessage().startsWith("http-host-names must be host names"), e.getMessage());
  }

  /** A PUT of a one-byte value under {@code key}, with the given {@code Host} header. */
  private static String rawPut(LarderServer server, String host, String key) throws IOException {
    String request =
        "PUT /api/caches/keyspace/entries/"
            + key
            + " HTTP/1.1\r\nHost: "
            + host
            + "\r\nContent-Type: application/octet-stream\r\nContent-Length: 1\r\n"
            + "Connection: close\r\n\r\nx";
    try (java.net.Socket socket =
        new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), server.httpPort())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void httpCanBeTurnedOff() throws Exception {
    try (LarderServer server = start("http-port", "-1")) {
      assertEquals(0, server.httpPort());
      assertNotEquals(0, server.respPort());
    }
    assertThrows(
        IllegalArgumentException.class, () -> ServerConfig.of(Map.of("http-port", "70000")));
  }

  private static String basic(String userAndPassword) {
    return "Basic "
        + Base64.getEncoder().encodeToString(userAndPassword.getBytes(StandardCharsets.UTF_8));
  }

  private static Map<String, String> info(String text) {
    Map<String, String> m = new HashMap<>();
    for (String line : text.split("\r\n", -1)) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        m.put(line.substring(0, colon), line.substring(colon + 1));
      }
    }
    return m;
  }

  /** The value of one sample of the keyspace cache, e.g. {@code cache_size{cache="keyspace"}}. */
  private static long sample(String text, String name, String label) {
    List<String> found = samples(text, name, label);
    assertEquals(1, found.size(), name + " " + label + " in\n" + text);
    return (long) Double.parseDouble(found.getFirst());
  }

  /** The values of the keyspace cache's samples of a name (and a label, if not null). */
  private static List<String> samples(String text, String name, String label) {
    Pattern p =
        Pattern.compile("^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);
    Matcher m = p.matcher(text);
    List<String> found = new ArrayList<>();
    while (m.find()) {
      String labels = m.group(1);
      if (labels.contains("cache=\"keyspace\"") && (label == null || labels.contains(label))) {
        found.add(m.group(2));
      }
    }
    return found;
  }

  @SuppressWarnings("ArrayRecordComponent") // never compared: the test reads its fields
  record Reply(int status, byte[] body) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private static Reply http(
      LarderServer server, String method, String path, byte[] body, String authorization)
      throws IOException {
    HttpURLConnection c =
        (HttpURLConnection)
            URI.create("http://127.0.0.1:" + server.httpPort() + path).toURL().openConnection();
    c.setRequestMethod(method);
    c.setConnectTimeout(20_000);
    c.setReadTimeout(20_000);
    if (authorization != null) {
      c.setRequestProperty("Authorization", authorization);
    }
    if (body != null) {
      c.setDoOutput(true);
      c.setRequestProperty("Content-Type", "application/octet-stream");
      try (OutputStream out = c.getOutputStream()) {
        out.write(body);
      }
    }
    int status = c.getResponseCode();
    InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
    byte[] bytes = in == null ? new byte[0] : in.readAllBytes();
    if (in != null) {
      in.close();
    }
    return new Reply(status, bytes);
  }
}
