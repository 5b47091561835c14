package dev.larder.http;

import dev.larder.Cache;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Random;
import java.util.function.UnaryOperator;

/**
 * Three caches with known traffic behind a real server on 127.0.0.1 (a free port), and a JDK
 * HttpClient to ask it:
 *
 * <ul>
 *   <li>{@code books}: String to String, 1 MiB bound, statistics on, REST as text;
 *   <li>{@code blobs}: String to byte[], 64 KiB bound (so 1 KiB values are evicted), statistics on,
 *       REST as octet-stream;
 *   <li>{@code counters}: Long to String, 50 entries bound, statistics off, no REST.
 * </ul>
 */
final class Fixture implements AutoCloseable {

  final Cache<String, String> books =
      Cache.builder(String.class, String.class).maximumMemory(1 << 20).recordStats().build();
  final Cache<String, byte[]> blobs =
      Cache.builder(String.class, byte[].class).maximumMemory(64 << 10).recordStats().build();
  final Cache<Long, String> counters =
      Cache.builder(Long.class, String.class).maximumEntries(50).build();
  final CacheDirectory directory =
      new CacheDirectory()
          .addStrings("books", books)
          .addBytes("blobs", blobs)
          .add("counters", counters);
  final LarderHttpServer server;
  final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private Fixture(UnaryOperator<LarderHttpServer.Builder> settings) throws IOException {
    server = settings.apply(LarderHttpServer.builder(directory).port(0)).start();
  }

  static Fixture start() throws IOException {
    return new Fixture(b -> b);
  }

  static Fixture start(UnaryOperator<LarderHttpServer.Builder> settings) throws IOException {
    return new Fixture(settings);
  }

  /** Puts, hits, misses, loads and evictions in every cache; deterministic. */
  Fixture traffic() {
    Random random = new Random(25);
    for (int i = 0; i < 500; i++) {
      books.put("book-" + i, "title of book " + i);
    }
    for (int i = 0; i < 400; i++) {
      books.getIfPresent("book-" + random.nextInt(650)); // about 3 in 4 hit
    }
    books.get("loaded", k -> "from the loader");
    byte[] value = new byte[1024];
    for (int i = 0; i < 200; i++) {
      random.nextBytes(value);
      blobs.put("blob-" + i, value);
    }
    for (int i = 0; i < 200; i++) {
      blobs.getIfPresent("blob-" + i);
    }
    for (long i = 0; i < 100; i++) {
      counters.put(i, "n" + i);
    }
    books.cleanUp();
    blobs.cleanUp();
    counters.cleanUp();
    return this;
  }

  URI uri(String path) {
    return server.uri().resolve(path);
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
    return client.send(
        request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    server.close();
    client.close();
    books.close();
    blobs.close();
    counters.close();
  }
}
