package dev.larder.client;

import java.util.List;
import redis.clients.jedis.csc.Cache;
import redis.clients.jedis.csc.CacheKey;
import redis.clients.jedis.csc.EvictionPolicy;

/**
 * What {@link LarderJedisCache#getEvictionPolicy()} returns: a description of the Larder cache's
 * own policy (frequency and recency, under the byte bound), which evicts as the cache is written
 * and sees every access itself. So touches and resets need nothing from here, and eviction on
 * demand is not offered. Immutable; thread-safe.
 */
@SuppressWarnings("rawtypes") // Jedis's EvictionPolicy interface declares raw CacheKey types.
final class LarderEviction implements EvictionPolicy {
  private final LarderJedisCache cache;

  LarderEviction(LarderJedisCache cache) {
    this.cache = cache;
  }

  @Override
  public Cache getCache() {
    return cache;
  }

  /**
   * Accepts only the cache this policy belongs to.
   *
   * @throws IllegalArgumentException for another cache
   */
  @Override
  public void setCache(Cache other) {
    if (other != cache) {
      throw new IllegalArgumentException("Larder's policy belongs to its own cache");
    }
  }

  @Override
  public EvictionType getType() {
    return EvictionType.HYBR;
  }

  @Override
  public String getName() {
    return "Larder (frequency and recency, bounded in bytes)";
  }

  /**
   * Unsupported: Larder evicts when a write needs room, never on request.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public CacheKey evictNext() {
    throw new UnsupportedOperationException("Larder evicts when a write needs room");
  }

  /**
   * Unsupported, as {@link #evictNext()}.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public List<CacheKey> evictMany(int count) {
    throw new UnsupportedOperationException("Larder evicts when a write needs room");
  }

  /** Nothing to do: the Larder cache counts its own accesses. */
  @Override
  public void touch(CacheKey key) {}

  /** Nothing to do: a removed entry leaves the Larder cache's policy with it; returns false. */
  @Override
  public boolean reset(CacheKey key) {
    return false;
  }

  /** Nothing to do, as {@link #reset}; returns 0. */
  @Override
  public int resetAll() {
    return 0;
  }
}
