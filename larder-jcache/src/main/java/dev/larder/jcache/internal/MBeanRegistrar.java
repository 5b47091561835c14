package dev.larder.jcache.internal;

import java.lang.management.ManagementFactory;
import javax.cache.CacheException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Registers a cache's MXBeans with the platform MBean server under the names JCache specifies:
 * {@code javax.cache:type=CacheStatistics|CacheConfiguration,CacheManager=<uri>,Cache=<name>},
 * with the characters that ObjectName reserves ({@code , : = \n}) replaced by '.'.
 */
final class MBeanRegistrar {

  /** The two MXBean kinds; the constant names are the {@code type} values. */
  enum Kind {
    CacheConfiguration,
    CacheStatistics
  }

  private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

  private MBeanRegistrar() {}

  static ObjectName name(Kind kind, String managerUri, String cacheName) {
    try {
      return new ObjectName("javax.cache:type=" + kind + ",CacheManager=" + safe(managerUri)
          + ",Cache=" + safe(cacheName));
    } catch (MalformedObjectNameException e) {
      throw new CacheException("cannot name the MXBean of cache " + cacheName, e);
    }
  }

  private static String safe(String text) {
    return text == null ? "" : text.replaceAll("[,:=\n]", ".");
  }

  /** Registers {@code bean}, replacing whatever was registered under the name. */
  static void register(ObjectName name, Object bean) {
    try {
      unregister(name);
      SERVER.registerMBean(bean, name);
    } catch (JMException e) {
      throw new CacheException("cannot register MXBean " + name, e);
    }
  }

  /** Unregisters the name if registered. */
  static void unregister(ObjectName name) {
    try {
      if (SERVER.isRegistered(name)) {
        SERVER.unregisterMBean(name);
      }
    } catch (InstanceNotFoundException raced) {
      // unregistered concurrently: the outcome wanted
    } catch (JMException e) {
      throw new CacheException("cannot unregister MXBean " + name, e);
    }
  }
}
