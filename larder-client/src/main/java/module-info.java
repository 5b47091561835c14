/**
 * Client-side caching for Redis clients backed by a Larder cache: {@link
 * dev.larder.client.LarderJedisCache}, a Jedis {@code redis.clients.jedis.csc.Cache} that keeps
 * replies as compact bytes under a byte bound.
 *
 * <p>Jedis has no module descriptor (it is the automatic module {@code redis.clients.jedis}); it is
 * required transitively because the cache implements its interface. Automatic modules open every
 * package, which the cache relies on to read the command of a Jedis {@code CacheKey} (see {@code
 * CommandKeys}).
 */
@SuppressWarnings("requires-transitive-automatic")
module dev.larder.client {
  requires transitive dev.larder.core;
  requires transitive redis.clients.jedis;

  exports dev.larder.client;
}
