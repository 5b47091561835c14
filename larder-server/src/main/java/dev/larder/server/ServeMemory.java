package dev.larder.server;

import java.util.List;

/**
 * The memory a server process may use, derived from its settings, and the JVM caps that hold it
 * there: what {@code ./larder serve} starts its JVM with.
 *
 * <p>Where the memory goes: the keyspace's bound ({@code maxmemory}) covers its index (on the heap,
 * 9.4 to 11.3 bytes an entry) and its pages (off the heap, mapped memory the direct-memory cap does
 * not cover); requests and unsent replies are bounded by {@code maxmemory-clients}, and may sit on
 * the heap (decoded arguments) or in Netty's direct buffers (input not yet decoded, replies), so
 * both caps make room for all of it. So:
 *
 * <pre>
 *   heap cap    = 96 MiB + maxmemory * 3 / 4 + maxmemory-clients
 *   direct cap  = 96 MiB + maxmemory-clients
 *   resident   &lt;= maxmemory + heap cap + direct cap + 160 MiB (the JVM's own: code, metadata,
 *                 threads, the collector's tables)
 * </pre>
 *
 * <p>96 MiB is the heap of a server at rest plus the garbage of a busy one between collections, and
 * the direct buffers Netty keeps pooled per event loop; three quarters of maxmemory is room for the
 * index when the entries are as small as they come (6 bytes of key and value in the store, so up to
 * 65% of the bound is index). The bound is a ceiling the caps enforce, not a typical figure: {@code
 * ./larder bench server-abuse} measures what the outside tester's abuse reaches.
 *
 * <p>Stateless and thread-safe.
 */
final class ServeMemory {
  private static final long MIB = 1 << 20;
  static final long BASE_HEAP = 96 * MIB;
  static final long BASE_DIRECT = 96 * MIB;
  static final long JVM_NATIVE = 160 * MIB;
  static final long PERIODIC_GC_MILLIS = 15_000;

  private ServeMemory() {}

  /** Returns the heap cap for a server with these settings, in bytes. */
  static long heapBytes(ServerConfig config) {
    return BASE_HEAP + config.maxMemory() / 4 * 3 + config.maxMemoryClients();
  }

  /** Returns the direct-memory cap, in bytes. */
  static long directBytes(ServerConfig config) {
    return BASE_DIRECT + config.maxMemoryClients();
  }

  /** Returns the most resident memory the process may reach under these caps, in bytes. */
  static long residentBound(ServerConfig config) {
    return config.maxMemory() + heapBytes(config) + directBytes(config) + JVM_NATIVE;
  }

  /**
   * Returns the JVM options that set the caps, and G1's periodic collection (a concurrent cycle
   * when none ran for {@value #PERIODIC_GC_MILLIS} ms), which gives heap a burst of large requests
   * left behind back to the system once the server is quiet.
   */
  static List<String> jvmOptions(ServerConfig config) {
    return List.of(
        "-Xmx" + mib(heapBytes(config)) + "m",
        "-XX:MaxDirectMemorySize=" + mib(directBytes(config)) + "m",
        "-XX:G1PeriodicGCInterval=" + PERIODIC_GC_MILLIS);
  }

  private static long mib(long bytes) {
    return (bytes + MIB - 1) / MIB;
  }
}
