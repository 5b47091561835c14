package dev.larder.client.internal;

import java.io.ByteArrayOutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import redis.clients.jedis.Builder;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.csc.CacheKey;

/**
 * Turns a Jedis {@link CacheKey} into the bytes the near cache is keyed by, and names the Redis
 * keys it reads.
 *
 * <p>Implementation notes. Jedis keys its cache by the command object: two keys are equal when the
 * command's arguments are equal byte for byte and their reply builders are the same object (GET
 * with a String key builds a String, with a byte[] key a byte[]: the same bytes on the wire, two
 * entries). The bytes here carry both:
 *
 * <pre>
 *   varint builder id   (this cache's number for the builder object, given on first sight)
 *   varint argument count
 *   per argument: varint length, its bytes (the first argument is the command's name)
 * </pre>
 *
 * {@code CacheKey} does not expose its command, so it is read from the key's private field through
 * a private lookup: Jedis is an automatic module (or on the class path), and both open every
 * package. A Jedis without that field fails when the cache is built, naming it.
 *
 * <p>Builders are usually constants, so the table of ids stays small; a client that makes a new
 * builder for every call would grow it without end, so past {@link #MAX_BUILDERS} builders, new
 * ones get no id and their commands are not cached (reads go to the server). Thread-safe.
 */
public final class CommandKeys {
  /** The most builders given an id; commands built by others are not cached. */
  static final int MAX_BUILDERS = 4096;

  private static final VarHandle COMMAND = commandField();

  private final ConcurrentHashMap<Builder<?>, Integer> builderIds = new ConcurrentHashMap<>();

  private static VarHandle commandField() {
    try {
      return MethodHandles.privateLookupIn(CacheKey.class, MethodHandles.lookup())
          .findVarHandle(CacheKey.class, "command", CommandObject.class);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "this Jedis's CacheKey has no readable field 'command' (larder-client is built for Jedis"
              + " 7.2): "
              + e,
          e);
    }
  }

  /**
   * Returns the key's bytes, or null if its builder gets no id (past {@link #MAX_BUILDERS}).
   *
   * @param key a Jedis cache key
   */
  public byte[] encode(CacheKey<?> key) {
    CommandObject<?> command = (CommandObject<?>) COMMAND.get(key);
    Integer builderId = idOf(command.getBuilder());
    if (builderId == null) {
      return null;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    Varint.write(out, builderId);
    Varint.write(out, command.getArguments().size());
    for (Rawable argument : command.getArguments()) {
      byte[] raw = argument.getRaw();
      Varint.write(out, raw.length);
      out.write(raw, 0, raw.length);
    }
    return out.toByteArray();
  }

  private Integer idOf(Builder<?> builder) {
    Integer id = builderIds.get(builder);
    if (id != null || builderIds.size() >= MAX_BUILDERS) {
      return id;
    }
    synchronized (builderIds) {
      id = builderIds.get(builder);
      if (id == null && builderIds.size() < MAX_BUILDERS) {
        id = builderIds.size();
        builderIds.put(builder, id);
      }
      return id;
    }
  }

  /**
   * Returns the bytes of each Redis key the command reads, as the server names them in invalidation
   * messages, or null if a key is of a type other than String or byte[] (such a command is not
   * cached).
   *
   * @param redisKeys the keys of {@link CacheKey#getRedisKeys()}
   */
  public static byte[][] redisKeyBytes(List<?> redisKeys) {
    byte[][] keys = new byte[redisKeys.size()][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = redisKeyBytes(redisKeys.get(i));
      if (keys[i] == null) {
        return null;
      }
    }
    return keys;
  }

  /**
   * Returns a Redis key's bytes: a byte[] as it is, a String in UTF-8 (as Jedis sends it), anything
   * else null.
   */
  public static byte[] redisKeyBytes(Object redisKey) {
    return switch (redisKey) {
      case byte[] b -> b;
      case String s -> s.getBytes(StandardCharsets.UTF_8);
      case null, default -> null;
    };
  }
}
