package dev.larder.jcache.internal;

/**
 * Closes the user objects a cache owns (loader, writer, expiry policy, listeners, filters) when the
 * cache closes, as JCache requires of those that are {@link AutoCloseable}. A failure is logged and
 * does not stop the cache from closing.
 */
final class Closing {

  private static final System.Logger LOG = System.getLogger(Closing.class.getName());

  private Closing() {}

  static void quietly(Object resource) {
    if (resource instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        LOG.log(System.Logger.Level.WARNING, "closing " + resource + " failed", e);
      }
    }
  }
}
