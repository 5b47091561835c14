package dev.larder.internal;

import dev.larder.Cache;
import dev.larder.CacheStats;
import dev.larder.codec.ValueDictionary;
import dev.larder.management.CacheMXBean;
import java.lang.management.ManagementFactory;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * One cache's {@link CacheMXBean}, registered with the platform MBean server. The name is quoted
 * ({@link ObjectName#quote}), so names holding {@code , = : * ?} or quotes get an ObjectName of
 * their own instead of colliding or failing. Thread-safe.
 */
final class CacheManagement implements CacheMXBean {

  private final Cache<?, ?> cache;
  private final ObjectName objectName;

  private CacheManagement(Cache<?, ?> cache, ObjectName objectName) {
    this.cache = cache;
    this.objectName = objectName;
  }

  /**
   * Returns the registration, to {@link #unregister()} at close.
   *
   * @throws IllegalStateException if that name is registered already
   */
  static CacheManagement register(Cache<?, ?> cache, String name) {
    ObjectName objectName = objectName(name);
    CacheManagement bean = new CacheManagement(cache, objectName);
    try {
      ManagementFactory.getPlatformMBeanServer().registerMBean(bean, objectName);
    } catch (InstanceAlreadyExistsException e) {
      throw new IllegalStateException(
          "a cache is registered with JMX as "
              + objectName
              + " already; give each cache its own managementName",
          e);
    } catch (JMException e) {
      throw new IllegalStateException("could not register " + objectName + " with JMX", e);
    }
    return bean;
  }

  /**
   * Returns {@code dev.larder:type=Cache,name="<quoted name>"}.
   *
   * @param name a cache's management name
   */
  static ObjectName objectName(String name) {
    try {
      return new ObjectName("dev.larder:type=Cache,name=" + ObjectName.quote(name));
    } catch (JMException e) {
      // quote() makes any string a valid value; this cannot happen for a non-empty name.
      throw new IllegalArgumentException("not a usable JMX name: " + name, e);
    }
  }

  /** Unregisters the bean; does nothing if it is gone already. */
  void unregister() {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    try {
      server.unregisterMBean(objectName);
    } catch (InstanceNotFoundException e) {
      // Unregistered by someone else: nothing left to do.
    } catch (JMException e) {
      throw new IllegalStateException("could not unregister " + objectName, e);
    }
  }

  @Override
  public long getEstimatedSize() {
    return cache.estimatedSize();
  }

  @Override
  public long getMemoryUsed() {
    return cache.memoryUsed();
  }

  @Override
  public long getMaximumMemory() {
    return cache.maximumMemory().orElse(-1);
  }

  @Override
  public long getMaximumEntries() {
    return cache.maximumEntries().orElse(-1);
  }

  @Override
  public boolean isStatisticsEnabled() {
    return cache.recordsStats();
  }

  @Override
  public long getHitCount() {
    return cache.stats().hitCount();
  }

  @Override
  public long getMissCount() {
    return cache.stats().missCount();
  }

  @Override
  public double getHitRatio() {
    return cache.stats().hitRatio();
  }

  @Override
  public long getPutCount() {
    return cache.stats().putCount();
  }

  @Override
  public long getRemovalCount() {
    return cache.stats().removalCount();
  }

  @Override
  public long getEvictionCount() {
    return cache.stats().evictionCount();
  }

  @Override
  public long getExpirationCount() {
    return cache.stats().expirationCount();
  }

  @Override
  public long getLoadSuccessCount() {
    return cache.stats().loadSuccessCount();
  }

  @Override
  public long getLoadFailureCount() {
    return cache.stats().loadFailureCount();
  }

  @Override
  public long getGetLatencyP50Nanos() {
    return stats().getLatency().p50Nanos();
  }

  @Override
  public long getGetLatencyP99Nanos() {
    return stats().getLatency().p99Nanos();
  }

  @Override
  public long getPutLatencyP50Nanos() {
    return stats().putLatency().p50Nanos();
  }

  @Override
  public long getPutLatencyP99Nanos() {
    return stats().putLatency().p99Nanos();
  }

  @Override
  public long getLoadLatencyP50Nanos() {
    return stats().loadLatency().p50Nanos();
  }

  @Override
  public long getLoadLatencyP99Nanos() {
    return stats().loadLatency().p99Nanos();
  }

  @Override
  public long getDictionaryEntries() {
    return cache.dictionary().map(ValueDictionary::size).orElse(0);
  }

  @Override
  public long getDictionaryMemoryUsed() {
    return cache.dictionary().map(ValueDictionary::memoryUsed).orElse(0L);
  }

  @Override
  public void invalidateAll() {
    cache.invalidateAll();
  }

  @Override
  public void cleanUp() {
    cache.cleanUp();
  }

  private CacheStats stats() {
    return cache.stats();
  }
}
