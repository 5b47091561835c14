package dev.larder.bench.peer;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The baseline: a {@link ConcurrentHashMap} with default settings. It never evicts, so in bounded
 * scenarios it holds every key and shows the cost of no bound at all.
 */
final class ConcurrentHashMapPeer implements Peer {

  @Override
  public String name() {
    return "ConcurrentHashMap";
  }

  @Override
  public boolean offHeap() {
    return false;
  }

  @Override
  public <K, V> CacheFamily<K, V> family(CacheSpec<K, V> spec) {
    return SimpleFamily.of(name -> new MapCache<>(new ConcurrentHashMap<>()));
  }
}
