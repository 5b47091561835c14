/**
 * Larder's JSR-107 (JCache) provider: {@link dev.larder.jcache.LarderCachingProvider}.
 *
 * <p>Only the API package is exported; the cache, manager, events and MXBeans live in {@code
 * dev.larder.jcache.internal}.
 *
 * <p>The JCache API jar has no module descriptor, so it is the automatic module {@code cache.api};
 * it is required transitively because this module's API extends its types.
 */
@SuppressWarnings("requires-transitive-automatic")
module dev.larder.jcache {
  requires transitive dev.larder.core;
  requires transitive cache.api;
  requires java.management;

  exports dev.larder.jcache;

  provides javax.cache.spi.CachingProvider with
      dev.larder.jcache.LarderCachingProvider;
}
