package dev.larder.server.internal.http;

import dev.larder.http.CacheFigures;
import dev.larder.http.ServedCache;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The server's keyspace as larder-http serves it ({@code /api/caches}, {@code /metrics}, the
 * console, and REST on database 0's string keys). Thread-safe.
 *
 * <p><b>Always the current cache.</b> The keyspace replaces its cache when {@code CONFIG SET
 * maxmemory} changes the bound, and closes the old one. This class asks the keyspace on every call,
 * so it always reports the current cache: never a closed one, and no directory to update. Every
 * call holds the keyspace's shared lock, as every RESP command does; the rebuild runs under the
 * exclusive lock, so a call sees the cache before or after it, whole.
 *
 * <p><b>Figures.</b> Sizes and bounds are the whole keyspace's (all 16 databases, as {@code INFO
 * memory} reports them). The counts are the keyspace's own, the ones {@code INFO stats} reports:
 * hits and misses of reads (GET, HGET, memcached get and the like), expired keys and evicted keys;
 * they survive a rebuild. The server counts no writes, removals or loads and times nothing, so
 * those figures are not measured (empty), and the endpoints leave them out.
 *
 * <p><b>Entries.</b> Keys are database 0's keys as UTF-8 text, values the bytes of a string value.
 * {@link #put} stores a plain string with no expiry (as {@code SET key value} does, replacing any
 * value of another type); {@link #getIfPresent} of a key that holds a hash throws {@link
 * IllegalArgumentException} with Redis's {@code WRONGTYPE} wording and counts a hit, as GET does;
 * {@link #remove} removes the key whatever it holds, as {@code DEL} does.
 *
 * <p><b>Key browser.</b> {@link #forEachKey} walks database 0's live keys (as {@code SCAN} does,
 * under the shared lock), giving each as UTF-8 text; a key that is not valid UTF-8 is shown with
 * replacement characters and cannot be opened by its text. {@link #timeToLive} is Redis's {@code
 * PTTL}: the time left for a key with an expiry, empty for one without. {@link #clear} is {@code
 * FLUSHALL}, under the exclusive lock, as the sizes it clears are every database's.
 */
final class ServedKeyspace implements ServedCache<String, byte[]> {

  private static final int DB = 0;

  private final Keyspace keyspace;

  /**
   * @param keyspace the server's keyspace
   */
  ServedKeyspace(Keyspace keyspace) {
    this.keyspace = Objects.requireNonNull(keyspace, "keyspace");
  }

  @Override
  public CacheFigures figures() {
    return locked(
        () -> {
          long[] s = keyspace.stats();
          return new CacheFigures(
              keyspace.estimatedSize(),
              keyspace.memoryUsed(),
              OptionalLong.of(keyspace.maxMemory()),
              OptionalLong.empty(),
              true,
              s[0],
              s[1],
              OptionalLong.empty(),
              s[3],
              s[2],
              OptionalLong.empty(),
              OptionalLong.empty(),
              OptionalLong.empty(),
              Optional.empty(),
              Optional.empty(),
              Optional.empty(),
              Optional.empty());
        });
  }

  @Override
  public byte[] getIfPresent(String key) {
    byte[] k = key(key);
    return locked(() -> payloadOf(key, keyspace.get(DB, k)));
  }

  @Override
  public void put(String key, byte[] value) {
    byte[] k = key(key);
    StoredValue v = StoredValue.string(Objects.requireNonNull(value, "value").clone());
    locked(() -> keyspace.put(DB, k, v));
  }

  @Override
  public boolean remove(String key) {
    byte[] k = key(key);
    return locked(() -> keyspace.delete(DB, k));
  }

  @Override
  public void forEachKey(Consumer<? super String> action) {
    locked(
        () -> {
          keyspace.forEach(
              DB, (key, value) -> action.accept(new String(key, StandardCharsets.UTF_8)));
          return null;
        });
  }

  @Override
  public void clear() {
    Lock lock = keyspace.exclusive();
    lock.lock();
    try {
      keyspace.flushAll();
    } finally {
      lock.unlock();
    }
    keyspace.awaitDurable();
  }

  @Override
  public boolean reportsTimeToLive() {
    return true;
  }

  @Override
  public Optional<Duration> timeToLive(String key) {
    byte[] k = key(key);
    return locked(
        () -> {
          StoredValue value = keyspace.peek(DB, k);
          if (value == null || !value.volatileKey()) {
            return Optional.empty();
          }
          return Optional.of(
              Duration.ofMillis(Math.max(0, value.expiresAtMillis() - keyspace.now())));
        });
  }

  /**
   * Runs a call under the shared lock, then waits for the log as a RESP reply would (a write is
   * answered once durable under the server's appendfsync; a read once what it saw is).
   */
  private <T> T locked(Supplier<T> body) {
    Lock lock = keyspace.shared();
    T result;
    lock.lock();
    try {
      result = body.get();
    } finally {
      lock.unlock();
    }
    keyspace.awaitDurable();
    return result;
  }

  private static byte[] key(String key) {
    return Objects.requireNonNull(key, "key").getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] payloadOf(String key, StoredValue value) {
    if (value == null) {
      return null;
    }
    if (value.type() != ValueType.STRING) {
      throw new IllegalArgumentException(
          "WRONGTYPE key '" + key + "' holds a " + value.type().redisName() + ", not a string");
    }
    return value.payload();
  }
}
