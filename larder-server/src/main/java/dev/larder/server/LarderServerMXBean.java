package dev.larder.server;

/**
 * A running server's figures over JMX, registered by {@link LarderServer} when the {@link
 * ServerSetting#JMX jmx} setting is {@code yes} (the default), as {@code
 * dev.larder:type=Server,name="larder-server"} ({@code "larder-server-2"}, {@code -3}... for
 * further servers in the same JVM), and unregistered by {@link LarderServer#close()}. The figures
 * are those of {@code INFO} and of the console's server panel, read when asked for; the counters
 * count since the server started. Implementations are thread-safe.
 */
public interface LarderServerMXBean {

  /** Returns the bound RESP port, 0 when RESP is off. */
  int getRespPort();

  /** Returns the bound memcached port, 0 when memcached is off. */
  int getMemcachePort();

  /** Returns the bound HTTP port, 0 when HTTP is off. */
  int getHttpPort();

  /** Returns client connections open, RESP and memcached ({@code connected_clients}). */
  int getConnections();

  /** Returns connections accepted or refused since start ({@code total_connections_received}). */
  long getConnectionsReceived();

  /** Returns connections refused at max-connections ({@code rejected_connections}). */
  long getRejectedConnections();

  /** Returns RESP and memcached commands processed ({@code total_commands_processed}). */
  long getCommandsProcessed();

  /** Returns keys, every database ({@code DBSIZE} summed: the store's counts, no walk). */
  long getKeys();

  /** Returns bytes the keyspace uses against its bound ({@code used_memory}). */
  long getMemoryUsed();

  /** Returns the keyspace's byte bound ({@code maxmemory}). */
  long getMaxMemory();

  /** Returns {@code allkeys-lfu} or {@code noeviction}. */
  String getMaxMemoryPolicy();

  /** Returns reads that found a live key ({@code keyspace_hits}). */
  long getKeyspaceHits();

  /** Returns reads that found none ({@code keyspace_misses}). */
  long getKeyspaceMisses();

  /** Returns keys removed on expiry ({@code expired_keys}). */
  long getExpiredKeys();

  /** Returns keys evicted at the bound ({@code evicted_keys}). */
  long getEvictedKeys();

  /** Returns seconds since the server started. */
  long getUptimeSeconds();
}
