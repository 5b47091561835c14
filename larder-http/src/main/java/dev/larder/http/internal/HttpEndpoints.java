package dev.larder.http.internal;

import dev.larder.http.CacheDirectory;
import dev.larder.http.CacheDirectory.Registration;
import dev.larder.http.LarderHttpConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The routes, shared by every connection of one endpoint:
 *
 * <pre>
 *   GET  /                                    the console (and /console/* its files)
 *   GET  /metrics                             Prometheus text (OpenMetrics if Accept asks)
 *   GET  /api/caches                          every cache's figures, and the status sections
 *   GET  /api/caches/{name}                   one cache's figures
 *   GET  /api/caches/{name}/keys?match=&cursor=&count=   a page of the key browser's scan
 *   DELETE /api/caches/{name}/entries         clear the cache
 *   GET, PUT, DELETE /api/caches/{name}/entries/{key}
 * </pre>
 *
 * <p>Path segments are percent-decoded one by one after splitting on {@code /}, so a name or key
 * may contain an encoded slash ({@code %2F}). Thread-safe: the state is the directory (itself
 * thread-safe), the meters (synchronized) and immutable assets.
 */
public final class HttpEndpoints {

  private static final System.Logger LOG = System.getLogger(HttpEndpoints.class.getName());

  static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final CacheDirectory directory;
  private final PrometheusMeterRegistry registry;
  private final CacheMeters meters;
  private final Authenticator authenticator;
  private final ChangeGuard guard;
  private final ConsoleAssets assets = new ConsoleAssets();

  /**
   * @param directory the caches
   * @param config the settings (the password is what this class uses)
   * @param registry the registry to bind meters to and scrape
   */
  public HttpEndpoints(
      CacheDirectory directory, LarderHttpConfig config, PrometheusMeterRegistry registry) {
    this.directory = directory;
    this.registry = registry;
    this.meters = new CacheMeters(registry, directory);
    this.authenticator = new Authenticator(config.password());
    this.guard = new ChangeGuard(config.hostNames());
  }

  Authenticator authenticator() {
    return authenticator;
  }

  ChangeGuard guard() {
    return guard;
  }

  /**
   * Returns the reply.
   *
   * @param method the request's method
   * @param uri the request's target
   * @param accept the {@code Accept} header, or null
   * @param contentType the {@code Content-Type} header, or null
   * @param body the request's body
   * @throws HttpProblem for a request the endpoints refuse
   */
  HttpReply route(String method, String uri, String accept, String contentType, byte[] body) {
    QueryStringDecoder decoder = new QueryStringDecoder(uri);
    String path = decoder.rawPath();
    Optional<ConsoleAssets.Asset> asset = assets.find(path.equals("/index.html") ? "/" : path);
    if (asset.isPresent()) {
      requireGet(method, path);
      return HttpReply.of(HttpResponseStatus.OK, asset.get().contentType(), asset.get().bytes())
          .withHeader("Cache-Control", "no-cache");
    }
    if (path.equals("/metrics")) {
      requireGet(method, path);
      return metrics(accept);
    }
    List<String> segments = segments(path);
    if (segments.size() >= 2 && segments.get(0).equals("api") && segments.get(1).equals("caches")) {
      return api(
          method,
          path,
          segments.subList(2, segments.size()),
          decoder.parameters(),
          contentType,
          body);
    }
    throw HttpProblem.notFound(
        "no resource at "
            + path
            + "; try /, /metrics, /api/caches or /api/caches/{name}/entries/{key}");
  }

  private HttpReply api(
      String method,
      String path,
      List<String> rest,
      Map<String, List<String>> query,
      String contentType,
      byte[] body) {
    if (rest.isEmpty()) {
      requireGet(method, path);
      return HttpReply.json(overview());
    }
    Registration<?, ?> registration =
        directory
            .get(rest.get(0))
            .orElseThrow(() -> HttpProblem.notFound("no cache named '" + rest.get(0) + "'"));
    if (rest.size() == 1) {
      requireGet(method, path);
      return HttpReply.json(report(registration));
    }
    boolean entries = rest.size() == 3 && rest.get(1).equals("entries");
    boolean keys = rest.size() == 2 && rest.get(1).equals("keys");
    boolean all = rest.size() == 2 && rest.get(1).equals("entries");
    if (entries || keys || all) {
      if (!registration.servesEntries()) {
        throw HttpProblem.methodNotAllowed(
            method,
            "cache '"
                + registration.name()
                + "' (it was added without key and value formats, so it serves no entries)",
            "");
      }
      try {
        if (keys) {
          requireGet(method, path);
          return HttpReply.json(KeyResource.scan(registration, query));
        }
        if (all) {
          if (!method.equals("DELETE")) {
            throw HttpProblem.methodNotAllowed(method, path, "DELETE");
          }
          registration.cache().clear();
          return HttpReply.noContent();
        }
        return EntryResource.handle(registration, method, rest.get(2), contentType, body);
      } catch (IllegalStateException closed) {
        throw closed(registration, closed);
      }
    }
    throw HttpProblem.notFound("no resource at " + path);
  }

  private HttpReply metrics(String accept) {
    meters.sync();
    boolean openMetrics = accept != null && accept.contains("application/openmetrics-text");
    String type = openMetrics ? OPENMETRICS : PROMETHEUS_TEXT;
    String text = meters.scrape(() -> registry.scrape(type));
    return HttpReply.of(HttpResponseStatus.OK, type, text.getBytes(StandardCharsets.UTF_8));
  }

  private Map<String, Object> overview() {
    List<CacheReport> caches = new ArrayList<>();
    for (Registration<?, ?> r : directory.list()) {
      try {
        caches.add(CacheReport.of(r));
      } catch (IllegalStateException closed) {
        // A closed cache is left out of reports until it is removed from the directory.
      }
    }
    Map<String, Object> sections = new LinkedHashMap<>();
    for (Map.Entry<String, Supplier<? extends Map<String, ?>>> e :
        directory.sections().entrySet()) {
      sections.put(e.getKey(), section(e.getKey(), e.getValue()));
    }
    Map<String, Object> overview = new LinkedHashMap<>();
    overview.put("time", System.currentTimeMillis());
    overview.put("caches", caches);
    overview.put("sections", sections);
    return overview;
  }

  /** A failing section reports its failure; it must not take the caches' figures with it. */
  private static Object section(String name, Supplier<? extends Map<String, ?>> supplier) {
    try {
      Map<String, ?> figures = supplier.get();
      return figures == null ? Map.of() : figures;
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "status section " + name + " failed", e);
      return Map.of("error", String.valueOf(e));
    }
  }

  private static CacheReport report(Registration<?, ?> registration) {
    try {
      return CacheReport.of(registration);
    } catch (IllegalStateException closed) {
      throw closed(registration, closed);
    }
  }

  /** Every call on a closed cache throws IllegalStateException (Cache's contract). */
  private static HttpProblem closed(Registration<?, ?> registration, IllegalStateException e) {
    return HttpProblem.notFound(
        "cache '" + registration.name() + "' is unavailable: " + e.getMessage());
  }

  private static void requireGet(String method, String path) {
    if (!method.equals("GET")) {
      throw HttpProblem.methodNotAllowed(method, path, "GET");
    }
  }

  /** Splits on '/' and percent-decodes each segment; a bad escape is a 400. */
  private static List<String> segments(String path) {
    List<String> out = new ArrayList<>();
    for (String raw : path.split("/", -1)) {
      if (raw.isEmpty()) {
        continue;
      }
      try {
        out.add(
            QueryStringDecoder.decodeComponent(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        throw HttpProblem.badRequest("bad percent-encoding in path segment '" + raw + "'");
      }
    }
    return out;
  }
}
