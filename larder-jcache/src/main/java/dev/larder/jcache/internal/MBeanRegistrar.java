package dev.larder.jcache.internal;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.cache.CacheException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.JMRuntimeException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Registers a cache's MXBeans with the platform MBean server under the names JCache specifies:
 * {@code javax.cache:type=CacheStatistics|CacheConfiguration,CacheManager=<uri>,Cache=<name>}.
 *
 * <p>Implementation notes. The TCK (and the reference implementation) look the beans up with the
 * manager URI and cache name written as they are, except that {@code , : = \n} are replaced by
 * {@code .}. That replacement maps distinct names to one ({@code a.b}, {@code a:b}, {@code a,b},
 * {@code a=b}), and leaves {@code * ?} in place, which make the name a pattern that cannot be
 * registered. So:
 *
 * <ul>
 *   <li>the cache name is written as it is when it holds none of the characters an unquoted
 *       ObjectName value cannot hold ({@code , = : " * ?} and newline), which is the TCK's form,
 *       and quoted with {@link ObjectName#quote} otherwise. A quoted value starts with {@code "}
 *       and a plain one holds none, so every cache name gets its own ObjectName;
 *   <li>the manager URI keeps the replacement (the default URI {@code larder:default} holds a
 *       colon, and the TCK expects {@code larder.default}), and is quoted if what remains still
 *       cannot stand unquoted (a {@code ?} or {@code *}, which URIs may hold). Two managers whose
 *       URIs differ only in {@code , : = \n} therefore share names: see below.
 * </ul>
 *
 * <p>Each registration remembers its owner (the cache). Registering a name another owner holds
 * replaces that owner's bean (the only way two live caches can meet on one name is the manager URI
 * collision above); unregistering removes the bean only if the caller still owns it, so that
 * closing one cache never removes another cache's bean. Thread-safe.
 */
final class MBeanRegistrar {

  /** The two MXBean kinds; the constant names are the {@code type} values. */
  enum Kind {
    CacheConfiguration,
    CacheStatistics
  }

  private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

  /** Who registered each name this class registered, until it is unregistered. */
  private static final Map<ObjectName, Object> OWNERS = new ConcurrentHashMap<>();

  private MBeanRegistrar() {}

  /**
   * Returns the ObjectName of {@code kind} for a cache of this manager and name.
   *
   * @throws CacheException if no ObjectName can be formed (not expected: every value is quoted when
   *     needed)
   */
  static ObjectName name(Kind kind, String managerUri, String cacheName) {
    try {
      return new ObjectName(
          "javax.cache:type="
              + kind
              + ",CacheManager="
              + managerValue(managerUri)
              + ",Cache="
              + cacheValue(cacheName));
    } catch (MalformedObjectNameException e) {
      throw new CacheException("cannot name the MXBean of cache " + cacheName, e);
    }
  }

  /** Returns the cache name as it is if an unquoted value can hold it, else quoted. */
  static String cacheValue(String cacheName) {
    String name = cacheName == null ? "" : cacheName;
    return standsUnquoted(name) ? name : ObjectName.quote(name);
  }

  /** Returns the URI with {@code , : = \n} replaced by '.', quoted if it still needs it. */
  static String managerValue(String managerUri) {
    String safe = managerUri == null ? "" : managerUri.replaceAll("[,:=\n]", ".");
    return standsUnquoted(safe) ? safe : ObjectName.quote(safe);
  }

  private static boolean standsUnquoted(String value) {
    return value.chars().noneMatch(c -> ",=:\"*?\n".indexOf(c) >= 0);
  }

  /**
   * Registers {@code bean} under {@code name} for {@code owner}, replacing whatever was registered
   * under the name.
   *
   * @throws CacheException if the MBean server refuses it
   */
  static void register(ObjectName name, Object owner, Object bean) {
    synchronized (OWNERS) {
      try {
        if (SERVER.isRegistered(name)) {
          SERVER.unregisterMBean(name);
        }
        SERVER.registerMBean(bean, name);
        OWNERS.put(name, owner);
      } catch (JMException | JMRuntimeException e) {
        throw new CacheException("cannot register MXBean " + name + ": " + e, e);
      }
    }
  }

  /**
   * Unregisters {@code name} if {@code owner} registered it and nobody replaced it since.
   *
   * @throws CacheException if the MBean server refuses it
   */
  @SuppressWarnings("ReferenceEquality") // only the instance that registered a name unregisters it
  static void unregister(ObjectName name, Object owner) {
    synchronized (OWNERS) {
      if (OWNERS.get(name) != owner) {
        return;
      }
      OWNERS.remove(name);
      try {
        SERVER.unregisterMBean(name);
      } catch (InstanceNotFoundException gone) {
        // unregistered by someone else through the MBean server: the outcome wanted
      } catch (JMException | JMRuntimeException e) {
        throw new CacheException("cannot unregister MXBean " + name + ": " + e, e);
      }
    }
  }
}
