/**
 * Larder's JSR-107 (JCache) provider: {@link dev.larder.jcache.LarderCachingProvider}.
 *
 * <p>Only the API package is exported; the cache, manager, events and MXBeans live in
 * {@code dev.larder.jcache.internal}.
 */
module dev.larder.jcache {
  requires transitive dev.larder.core;
  requires transitive cache.api;
  requires java.management;

  exports dev.larder.jcache;

  provides javax.cache.spi.CachingProvider with dev.larder.jcache.LarderCachingProvider;
}
