package dev.larder.bench.sessions;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Transaction;

/**
 * Sessions in Redis, as most teams would keep them: one hash per session, a field per object
 * holding the same codec bytes Larder stores. A request is an optimistic transaction: WATCH the
 * session, HGETALL it, then MULTI, HSET every field, EXEC; an EXEC refused because a concurrent
 * request changed the session is retried from the WATCH. Under {@code appendfsync always} Redis
 * answers EXEC only after forcing its append-only file.
 *
 * <p>Jedis 7 deprecates {@code JedisPool} in favour of {@code RedisClient}, whose transactions
 * cannot read between WATCH and MULTI on one connection; a pooled {@code Jedis} connection is the
 * plain way to run the WATCH, read, MULTI, EXEC sequence.
 */
@SuppressWarnings("deprecation")
final class RedisSessions implements SessionStore {

  private final JedisPool pool;
  private final LongAdder retries = new LongAdder();

  /**
   * @param port redis-server's port on 127.0.0.1
   * @param connections the most connections open at once (one per concurrent request)
   */
  RedisSessions(int port, int connections) {
    GenericObjectPoolConfig<Jedis> config = new GenericObjectPoolConfig<>();
    config.setMaxTotal(connections);
    config.setMaxIdle(connections);
    pool = new JedisPool(config, "127.0.0.1", port, 30_000);
  }

  @Override
  public long touch(long session) {
    byte[] key = ("s" + session).getBytes(StandardCharsets.UTF_8);
    try (Jedis jedis = pool.getResource()) {
      for (int attempt = 0; attempt < 1000; attempt++) {
        if (attempt > 0) {
          retries.increment();
        }
        jedis.watch(key);
        Map<byte[], byte[]> current = jedis.hgetAll(key);
        Map<Integer, SessionObject> objects = new HashMap<>();
        current.forEach(
            (field, bytes) ->
                objects.put(
                    Integer.parseInt(new String(field, StandardCharsets.US_ASCII)),
                    SessionObject.CODEC.decode(new ByteSource(bytes))));
        @SuppressWarnings("UndefinedEquals") // Jedis's hset takes byte[] keys; it only iterates
        Map<byte[], byte[]> next = new HashMap<>();
        long counter = 0;
        for (int slot = 0; slot < SessionObject.PER_SESSION; slot++) {
          SessionObject object = objects.get(slot);
          SessionObject touched = (object == null ? SessionObject.fresh(slot) : object).touched();
          ByteSink sink = new ByteSink();
          SessionObject.CODEC.encode(touched, sink);
          next.put(Integer.toString(slot).getBytes(StandardCharsets.US_ASCII), sink.toByteArray());
          counter = touched.count();
        }
        Transaction multi = jedis.multi();
        multi.hset(key, next);
        List<Object> done = multi.exec();
        if (done != null && !done.isEmpty()) {
          return counter;
        }
      }
      throw new IllegalStateException("session " + session + ": 1000 attempts all conflicted");
    }
  }

  @Override
  public long retries() {
    return retries.sum();
  }

  @Override
  public void close() {
    pool.close();
  }
}
