package dev.larder.http.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;

/**
 * The console's files, read once from the jar (resources under {@code dev/larder/http/console/})
 * and served from memory. A missing resource fails the server's construction, not a request.
 */
final class ConsoleAssets {

  /** One file: its bytes and content type. */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  record Asset(byte[] bytes, String contentType) {}

  private static final String ROOT = "/dev/larder/http/console/";

  private final Map<String, Asset> byPath;

  ConsoleAssets() {
    String js = "text/javascript; charset=utf-8";
    // Browsers ask for /favicon.ico whatever the page says; an SVG served there is shown.
    Asset icon = load("favicon.svg", "image/svg+xml");
    byPath =
        Map.of(
            "/", load("index.html", "text/html; charset=utf-8"),
            "/console/console.js", load("console.js", js),
            "/console/charts.js", load("charts.js", js),
            "/console/format.js", load("format.js", js),
            "/console/browser.js", load("browser.js", js),
            "/console/console.css", load("console.css", "text/css; charset=utf-8"),
            "/favicon.svg", icon,
            "/favicon.ico", icon);
  }

  /**
   * Returns the file served there, if any.
   *
   * @param path a request path
   */
  Optional<Asset> find(String path) {
    return Optional.ofNullable(byPath.get(path));
  }

  private static Asset load(String file, String contentType) {
    try (InputStream in = ConsoleAssets.class.getResourceAsStream(ROOT + file)) {
      if (in == null) {
        throw new IllegalStateException("console resource " + ROOT + file + " is missing");
      }
      return new Asset(in.readAllBytes(), contentType);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read console resource " + ROOT + file, e);
    }
  }
}
