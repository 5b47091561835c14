package dev.larder.bench.sessions;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A built-in driver with the semantics of {@code siege -b -c N -t T URL}: N concurrent clients,
 * each sending its next request as soon as the previous response arrives (benchmark mode: no
 * delay), for T seconds; then siege's figures: transactions, transaction rate (requests/s), mean
 * response time, concurrency (the mean number of requests in flight) and the longest transaction.
 * HTTP/1.1 with keep-alive, through the JDK's HTTP client.
 *
 * <p>A response counts if it completes before the deadline; 200 is a success, anything else (or an
 * I/O error) a failure. Not thread-safe: one run at a time.
 */
final class SiegeDriver {

  /**
   * What one run measured.
   *
   * @param clients concurrent clients
   * @param seconds elapsed seconds
   * @param transactions successful responses
   * @param failed failed requests
   * @param meanResponseMillis mean response time of the successful responses
   * @param longestMillis the longest successful response
   */
  record Result(
      int clients,
      double seconds,
      long transactions,
      long failed,
      double meanResponseMillis,
      double longestMillis) {

    /** Returns successful responses per second (siege's transaction rate). */
    double requestsPerSecond() {
      return transactions / seconds;
    }

    /** Returns mean requests in flight (siege's concurrency). */
    double concurrency() {
      return transactions * meanResponseMillis / 1000 / seconds;
    }
  }

  private final HttpClient client;
  private final URI uri;

  /**
   * @param url the page to request
   */
  SiegeDriver(String url) {
    this.uri = URI.create(url);
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(30))
            .build();
  }

  /**
   * Returns the figures.
   *
   * @param clients concurrent clients, at least 1
   * @param seconds how long
   * @throws InterruptedException if interrupted
   */
  Result run(int clients, double seconds) throws InterruptedException {
    long[] counts = new long[clients];
    long[] failures = new long[clients];
    long[] totalNanos = new long[clients];
    long[] longestNanos = new long[clients];
    CountDownLatch ready = new CountDownLatch(clients);
    CountDownLatch go = new CountDownLatch(1);
    long[] deadline = new long[1];
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      int id = c;
      threads.add(
          Thread.ofPlatform()
              .name("siege-" + c)
              .start(
                  () -> {
                    HttpRequest request =
                        HttpRequest.newBuilder(uri).timeout(Duration.ofMinutes(2)).GET().build();
                    ready.countDown();
                    try {
                      go.await();
                    } catch (InterruptedException e) {
                      return;
                    }
                    long end = deadline[0];
                    while (true) {
                      long t0 = System.nanoTime();
                      if (t0 >= end) {
                        break;
                      }
                      boolean ok;
                      try {
                        HttpResponse<byte[]> response =
                            client.send(request, HttpResponse.BodyHandlers.ofByteArray());
                        ok = response.statusCode() == 200;
                      } catch (IOException e) {
                        ok = false;
                      } catch (InterruptedException e) {
                        return;
                      }
                      long t1 = System.nanoTime();
                      if (t1 > end) {
                        break; // finished after the deadline: siege would not count it either
                      }
                      if (ok) {
                        counts[id]++;
                        totalNanos[id] += t1 - t0;
                        longestNanos[id] = Math.max(longestNanos[id], t1 - t0);
                      } else {
                        failures[id]++;
                      }
                    }
                  }));
    }
    ready.await();
    long start = System.nanoTime();
    deadline[0] = start + (long) (seconds * 1e9);
    go.countDown(); // publishes deadline[0] to the clients (happens-before through the latch)
    for (Thread t : threads) {
      t.join();
    }
    double elapsed = (deadline[0] - start) / 1e9;
    long n = 0;
    long f = 0;
    long nanos = 0;
    long longest = 0;
    for (int c = 0; c < clients; c++) {
      n += counts[c];
      f += failures[c];
      nanos += totalNanos[c];
      longest = Math.max(longest, longestNanos[c]);
    }
    return new Result(clients, elapsed, n, f, n == 0 ? Double.NaN : nanos / 1e6 / n, longest / 1e6);
  }
}
