/**
 * Spring Boot auto-configuration of Larder caches: {@link dev.larder.spring.LarderCacheManager}
 * with per-cache {@code larder.caches.*} properties, and meters through Boot's cache metrics.
 */
package dev.larder.spring;
