package dev.larder.bench.hitratio;

import dev.larder.Cache;

/**
 * Larder's real cache, built with {@code maximumEntries(size)} (values are empty byte arrays) or,
 * for a byte bound, {@code maximumMemory(bytes)} with values of the request's size, so that its
 * memory accounting, not a model of it, decides what fits. Maintenance runs on the calling thread.
 * Each request is a {@code getIfPresent} followed, on a miss, by a {@code put}. With a byte bound
 * it also reports the payload it holds at the end (the values' bytes), which says how much of the
 * bound its pages and index leave to data.
 */
final class LarderContender implements Contender {

  private static final byte[] EMPTY = new byte[0];

  @Override
  public String name() {
    return "Larder";
  }

  @Override
  public Outcome replay(Trace trace, Bound bound, int run) {
    var builder = Cache.builder(Long.class, byte[].class).executor(Runnable::run);
    Cache<Long, byte[]> cache =
        bound.bytes()
            ? builder.maximumMemory(bound.value()).build()
            : builder.maximumEntries(bound.value()).build();
    return OnlineCache.replay(
        new OnlineCache() {
          @Override
          public boolean request(long key, int size) {
            if (cache.getIfPresent(key) != null) {
              return true;
            }
            cache.put(key, bound.bytes() ? new byte[size] : EMPTY);
            return false;
          }

          @Override
          public long heldBytes() {
            if (!bound.bytes()) {
              return -1;
            }
            long held = 0;
            for (byte[] value : cache.asMap().values()) {
              held += value.length;
            }
            return held;
          }

          @Override
          public void close() {
            cache.close();
          }
        },
        trace);
  }
}
