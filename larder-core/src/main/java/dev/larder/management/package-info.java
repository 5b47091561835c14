/**
 * JMX management of Larder caches: {@link dev.larder.management.CacheMXBean}, registered for a
 * cache built with {@link dev.larder.CacheBuilder#managementName(String)}.
 */
package dev.larder.management;
