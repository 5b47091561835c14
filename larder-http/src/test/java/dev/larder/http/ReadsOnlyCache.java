package dev.larder.http;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * A store that is not a Larder cache and measures only its size and its reads, as larder-server's
 * keyspace does: puts, removals, loads and latencies are not measured. Like the keyspace it reports
 * entries' time to live: {@link #putExpiring} gives one a deadline (only reported; nothing
 * expires).
 */
final class ReadsOnlyCache implements ServedCache<String, String> {

  private final ConcurrentMap<String, String> map = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Long> deadlines = new ConcurrentHashMap<>();
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();

  /** Calls of {@link #figures()}. */
  final LongAdder figuresRead = new LongAdder();

  @Override
  public CacheFigures figures() {
    figuresRead.increment();
    return new CacheFigures(
        map.size(),
        64L * map.size(),
        OptionalLong.empty(),
        OptionalLong.empty(),
        true,
        hits.sum(),
        misses.sum(),
        OptionalLong.empty(),
        0,
        0,
        OptionalLong.empty(),
        OptionalLong.empty(),
        OptionalLong.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  @Override
  public String getIfPresent(String key) {
    String v = map.get(key);
    (v == null ? misses : hits).increment();
    return v;
  }

  @Override
  public void put(String key, String value) {
    map.put(key, value);
  }

  @Override
  public boolean remove(String key) {
    deadlines.remove(key);
    return map.remove(key) != null;
  }

  @Override
  public void forEachKey(Consumer<? super String> action) {
    map.keySet().forEach(action);
  }

  @Override
  public void clear() {
    map.clear();
    deadlines.clear();
  }

  @Override
  public boolean reportsTimeToLive() {
    return true;
  }

  @Override
  public Optional<Duration> timeToLive(String key) {
    Long deadline = deadlines.get(key);
    return deadline == null
        ? Optional.empty()
        : Optional.of(Duration.ofMillis(Math.max(0, deadline - System.currentTimeMillis())));
  }

  /**
   * @param key a key
   * @param value its value
   * @param ttl the time to live it reports
   */
  void putExpiring(String key, String value, Duration ttl) {
    map.put(key, value);
    deadlines.put(key, System.currentTimeMillis() + ttl.toMillis());
  }

  /** Two entries, three hits, one miss. */
  ReadsOnlyCache traffic() {
    put("a", "1");
    put("b", "2");
    getIfPresent("a");
    getIfPresent("a");
    getIfPresent("b");
    getIfPresent("c");
    return this;
  }
}
