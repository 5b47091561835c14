package dev.larder.jcache.internal;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.WeakHashMap;
import javax.cache.CacheManager;
import javax.cache.spi.CachingProvider;

/**
 * The provider's open cache managers, one per (class loader, URI).
 *
 * <p>Class loaders are held weakly so that an undeployed application's loader can be collected. All
 * methods synchronize on this registry; managers are closed outside the lock, since closing a
 * manager calls back into {@link #release}.
 */
public final class ManagerRegistry {

  private final CachingProvider provider;
  private final Map<ClassLoader, Map<URI, LarderCacheManager>> managers = new WeakHashMap<>();

  /**
   * @param provider the provider the managers report as theirs
   */
  public ManagerRegistry(CachingProvider provider) {
    this.provider = provider;
  }

  /**
   * Returns the open manager for (uri, classLoader), created if absent.
   *
   * @param uri manager URI
   * @param classLoader manager class loader
   * @param properties used only when the manager is created
   */
  public synchronized CacheManager getOrCreate(
      URI uri, ClassLoader classLoader, Properties properties) {
    Map<URI, LarderCacheManager> byUri =
        managers.computeIfAbsent(classLoader, k -> new HashMap<>());
    LarderCacheManager manager = byUri.get(uri);
    if (manager == null) {
      manager = new LarderCacheManager(provider, this, uri, classLoader, properties);
      byUri.put(uri, manager);
    }
    return manager;
  }

  /** Closes every manager. */
  public void closeAll() {
    List<LarderCacheManager> open = new ArrayList<>();
    synchronized (this) {
      managers.values().forEach(byUri -> open.addAll(byUri.values()));
      managers.clear();
    }
    open.forEach(LarderCacheManager::close);
  }

  /**
   * Closes and forgets every manager of a class loader.
   *
   * @param classLoader closes the managers of this loader
   */
  public void close(ClassLoader classLoader) {
    Map<URI, LarderCacheManager> byUri;
    synchronized (this) {
      byUri = managers.remove(classLoader);
    }
    if (byUri != null) {
      new ArrayList<>(byUri.values()).forEach(LarderCacheManager::close);
    }
  }

  /**
   * Closes and forgets one manager.
   *
   * @param uri manager URI
   * @param classLoader manager class loader
   */
  public void close(URI uri, ClassLoader classLoader) {
    LarderCacheManager manager;
    synchronized (this) {
      Map<URI, LarderCacheManager> byUri = managers.get(classLoader);
      manager = byUri == null ? null : byUri.get(uri);
    }
    if (manager != null) {
      manager.close();
    }
  }

  /** Forgets a manager that is closing, so the next request creates a new one. */
  synchronized void release(LarderCacheManager manager) {
    Map<URI, LarderCacheManager> byUri = managers.get(manager.getClassLoader());
    if (byUri != null && byUri.get(manager.getURI()) == manager) {
      byUri.remove(manager.getURI());
      if (byUri.isEmpty()) {
        managers.remove(manager.getClassLoader());
      }
    }
  }
}
