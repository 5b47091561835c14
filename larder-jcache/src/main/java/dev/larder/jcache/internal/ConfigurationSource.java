package dev.larder.jcache.internal;

import dev.larder.jcache.LarderCachingProvider;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import javax.cache.CacheException;

/**
 * Finds the configuration file a cache manager's URI addresses:
 *
 * <ul>
 *   <li>{@code classpath:a/b.properties}: a resource of the manager's class loader; must exist;
 *   <li>an absolute URI with a URL scheme ({@code file:}, {@code jar:}, {@code http:} ...): read
 *       from there; must exist;
 *   <li>the provider's default URI: the resource {@code larder-jcache.properties}, if present;
 *   <li>anything else (a plain name): no file.
 * </ul>
 *
 * Files are UTF-8 properties files (format: {@link FileConfiguration}).
 */
final class ConfigurationSource {

  private ConfigurationSource() {}

  static FileConfiguration load(URI uri, ClassLoader classLoader) {
    if (LarderCachingProvider.DEFAULT_URI.equals(uri.toString())) {
      URL url = classLoader.getResource(LarderCachingProvider.DEFAULT_RESOURCE);
      return url == null ? FileConfiguration.EMPTY : read(url);
    }
    if ("classpath".equals(uri.getScheme())) {
      String path = uri.getSchemeSpecificPart().replaceFirst("^/+", "");
      URL url = classLoader.getResource(path);
      if (url == null) {
        throw new CacheException("configuration " + uri + " not found on the class path");
      }
      return read(url);
    }
    if (uri.isAbsolute() && isUrlScheme(uri.getScheme())) {
      try {
        return read(uri.toURL());
      } catch (IOException | IllegalArgumentException e) {
        throw new CacheException("cannot open configuration " + uri + ": " + e, e);
      }
    }
    return FileConfiguration.EMPTY;
  }

  private static boolean isUrlScheme(String scheme) {
    return switch (scheme) {
      case "file", "jar", "http", "https", "jrt", "vfs", "wsjar", "bundleresource" -> true;
      default -> false;
    };
  }

  private static FileConfiguration read(URL url) {
    String source = describe(url);
    String text;
    try (InputStream in = url.openStream()) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CacheException("cannot read configuration " + source + ": " + e, e);
    }
    try {
      return FileConfiguration.parse(NumberedProperties.parse(text), source);
    } catch (IllegalArgumentException e) { // a malformed Unicode escape
      throw new CacheException(source + ", " + e.getMessage(), e);
    }
  }

  /** A file's path when it is one, else its URL: what a user needs to find it. */
  static String describe(URL url) {
    if ("file".equals(url.getProtocol())) {
      try {
        return Path.of(url.toURI()).toString();
      } catch (URISyntaxException | IllegalArgumentException e) {
        return url.toString(); // not a plain file path: the URL says as much
      }
    }
    return url.toString();
  }
}
