package dev.larder.bench.hitratio;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * Caffeine (W-TinyLFU with its adaptive window), run on the calling thread ({@code
 * executor(Runnable::run)}) so that maintenance is not deferred. Its admission has a random
 * component, so the harness averages several runs.
 */
final class CaffeineContender implements Contender {

  @Override
  public String name() {
    return "Caffeine";
  }

  @Override
  public int runs() {
    return 3;
  }

  @Override
  public Outcome replay(Trace trace, Bound bound, int run) {
    Caffeine<Object, Object> builder = Caffeine.newBuilder().executor(Runnable::run);
    Cache<Long, Integer> cache;
    if (bound.bytes()) {
      cache =
          builder.maximumWeight(bound.value()).<Long, Integer>weigher((key, size) -> size).build();
    } else {
      cache = builder.maximumSize(bound.value()).build();
    }
    return OnlineCache.replay(
        (key, size) -> {
          if (cache.getIfPresent(key) != null) {
            return true;
          }
          cache.put(key, size);
          return false;
        },
        trace);
  }
}
