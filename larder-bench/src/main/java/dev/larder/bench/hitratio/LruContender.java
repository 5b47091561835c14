package dev.larder.bench.hitratio;

import java.util.LinkedHashMap;
import java.util.Map;

/** Least recently used, as a {@link LinkedHashMap} in access order: the baseline. */
public final class LruContender implements Contender {

  @Override
  public String name() {
    return "LRU";
  }

  @Override
  public Outcome replay(Trace trace, Bound bound, int run) {
    return OnlineCache.replay(new Lru(bound), trace);
  }

  private static final class Lru implements OnlineCache {
    private final Bound bound;
    private final LinkedHashMap<Long, Integer> map = new LinkedHashMap<>(1024, 0.75f, true);
    private long weight;

    Lru(Bound bound) {
      this.bound = bound;
    }

    @Override
    public boolean request(long key, int size) {
      if (map.get(key) != null) {
        return true;
      }
      long w = bound.weigh(size);
      if (w > bound.value()) {
        return false;
      }
      map.put(key, size);
      weight += w;
      var it = map.entrySet().iterator();
      while (weight > bound.value()) {
        Map.Entry<Long, Integer> eldest = it.next();
        weight -= bound.weigh(eldest.getValue());
        it.remove();
      }
      return false;
    }
  }
}
