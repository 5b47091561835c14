package dev.larder.jcache.internal;

import java.util.concurrent.atomic.LongAdder;
import javax.cache.management.CacheStatisticsMXBean;

/**
 * The JCache statistics of one cache, counted in the JCache layer because their definitions are
 * JCache's own (a {@code putIfAbsent} that stores counts a miss and a put, {@code containsKey}
 * counts nothing, a load through {@code get} is a miss but not a put). Counters are {@link
 * LongAdder}s: exact at quiescence, cheap under contention. Times are kept in nanoseconds and
 * reported as microsecond averages, as the MXBean specifies.
 */
final class JCacheStatistics implements CacheStatisticsMXBean {

  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder puts = new LongAdder();
  private final LongAdder removals = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder getNanos = new LongAdder();
  private final LongAdder putNanos = new LongAdder();
  private final LongAdder removeNanos = new LongAdder();

  void hit() {
    hits.increment();
  }

  void miss() {
    misses.increment();
  }

  void put() {
    puts.increment();
  }

  void removal() {
    removals.increment();
  }

  void eviction() {
    evictions.increment();
  }

  void getTime(long nanos) {
    getNanos.add(nanos);
  }

  void putTime(long nanos) {
    putNanos.add(nanos);
  }

  void removeTime(long nanos) {
    removeNanos.add(nanos);
  }

  @Override
  public void clear() {
    for (LongAdder adder :
        new LongAdder[] {
          hits, misses, puts, removals, evictions, getNanos, putNanos, removeNanos
        }) {
      adder.reset();
    }
  }

  @Override
  public long getCacheHits() {
    return hits.sum();
  }

  @Override
  public float getCacheHitPercentage() {
    return percentOfGets(getCacheHits());
  }

  @Override
  public long getCacheMisses() {
    return misses.sum();
  }

  @Override
  public float getCacheMissPercentage() {
    return percentOfGets(getCacheMisses());
  }

  @Override
  public long getCacheGets() {
    return getCacheHits() + getCacheMisses();
  }

  @Override
  public long getCachePuts() {
    return puts.sum();
  }

  @Override
  public long getCacheRemovals() {
    return removals.sum();
  }

  @Override
  public long getCacheEvictions() {
    return evictions.sum();
  }

  @Override
  public float getAverageGetTime() {
    return averageMicros(getNanos.sum(), getCacheGets());
  }

  @Override
  public float getAveragePutTime() {
    return averageMicros(putNanos.sum(), getCachePuts());
  }

  @Override
  public float getAverageRemoveTime() {
    return averageMicros(removeNanos.sum(), getCacheRemovals());
  }

  private float percentOfGets(long count) {
    long gets = getCacheGets();
    return gets == 0 ? 0f : (float) count / gets * 100.0f;
  }

  private static float averageMicros(long nanos, long count) {
    return count == 0 ? 0f : (float) nanos / count / 1000f;
  }
}
