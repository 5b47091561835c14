/**
 * Larder as a JSR-107 (JCache) provider: {@link dev.larder.jcache.LarderCachingProvider}, found by
 * {@link javax.cache.Caching} through the service loader, and {@link
 * dev.larder.jcache.LarderConfiguration} for Larder's own settings (memory bound, storage, codecs).
 * A configuration file addressed by the cache manager's URI sets the same without code.
 */
package dev.larder.jcache;
