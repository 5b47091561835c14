package dev.larder.server.internal.net;

import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's bound on memory held for clients: bytes of requests not yet run (a partial request
 * in a decoder, requests read and waiting, a MULTI queue) and of replies not yet sent, over every
 * connection of both protocols. Redis's three limits: each connection's requests ({@code
 * client-query-buffer-limit}), each connection's unsent replies ({@code
 * client-output-buffer-limit}) and all of it together ({@code maxmemory-clients}). A connection
 * over its own limit is disconnected; when the total passes the budget, the connections holding the
 * most are disconnected until it is back under. Each disconnection is logged with its reason
 * (rate-limited) and counted for INFO; other connections go on.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Counting: each connection's held bytes are counted where they change a lot and rarely: when a
 * read's requests have run ({@link RequestPipeline}, after the replies are written), when the
 * channel's writability changes (replies drained), and before a decoder allocates a large argument
 * whole ({@link ClientConnection#reserveInput}). The server's total changes by the difference only,
 * so a connection whose held bytes stay at zero (every request of a pipeline-1 client) costs no
 * atomic operation. Between counts a connection may hold up to one read's worth more than counted
 * (a read is at most 64 KiB per message and 16 messages), and the replies of one read are bounded
 * by the connection's output limit as they are built.
 *
 * <p>Eviction: a connection's count is an {@code AtomicLong}; the evicting thread takes it with
 * {@code getAndSet(RELEASED)} and subtracts it, and the connection's own later updates see RELEASED
 * and stop, so a connection's bytes leave the total exactly once (at eviction or at close).
 * Eviction scans the open connections for the largest, only when over the budget, under this
 * object's lock so that two threads do not evict for the same excess.
 *
 * <p>Thread-safe.
 */
public final class ClientMemory {
  private static final System.Logger LOG = System.getLogger(ClientMemory.class.getName());

  /** Why a connection was disconnected for memory. */
  public enum Reason {
    /** Its requests passed client-query-buffer-limit. */
    QUERY_LIMIT("client-query-buffer-limit"),
    /** Its unsent replies passed client-output-buffer-limit. */
    OUTPUT_LIMIT("client-output-buffer-limit"),
    /** All clients together passed maxmemory-clients and it held the most. */
    BUDGET("maxmemory-clients");

    private final String setting;

    Reason(String setting) {
      this.setting = setting;
    }

    /** Returns the setting whose limit was passed. */
    public String setting() {
      return setting;
    }
  }

  private final long queryLimit;
  private final long outputLimit;
  private final long budget;
  private final AtomicLong used = new AtomicLong();
  private final AtomicLong peak = new AtomicLong();
  private final Set<ClientConnection> open = ConcurrentHashMap.newKeySet();
  // filled here and only read after: safe to share through the final field
  private final Map<Reason, LongAdder> disconnections = counters();
  private final RateLimitedLog log = new RateLimitedLog(TimeUnit.SECONDS.toNanos(1));

  private static Map<Reason, LongAdder> counters() {
    Map<Reason, LongAdder> m = new EnumMap<>(Reason.class);
    for (Reason r : Reason.values()) {
      m.put(r, new LongAdder());
    }
    return m;
  }

  /**
   * @param queryLimit the most request bytes one connection may hold
   * @param outputLimit the most unsent reply bytes one connection may hold
   * @param budget the most bytes all connections together may hold
   */
  public ClientMemory(long queryLimit, long outputLimit, long budget) {
    this.queryLimit = queryLimit;
    this.outputLimit = outputLimit;
    this.budget = budget;
  }

  /** Returns the most unsent reply bytes one connection may hold. */
  public long outputLimit() {
    return outputLimit;
  }

  /** Returns the budget of all connections together (maxmemory-clients). */
  public long budget() {
    return budget;
  }

  /** Returns bytes held for clients now, as last counted. */
  public long used() {
    return used.get();
  }

  /** Returns the most bytes held for clients at once since the server started. */
  public long peak() {
    return peak.get();
  }

  /**
   * Returns connections disconnected for it since the server started.
   *
   * @param reason a reason
   */
  public long disconnections(Reason reason) {
    return disconnections.get(reason).sum();
  }

  void register(ClientConnection c) {
    open.add(c);
  }

  /** Gives back what a closed connection held; idempotent. */
  void release(ClientConnection c) {
    open.remove(c);
    long held = c.held.getAndSet(ClientConnection.RELEASED);
    if (held > 0) {
      used.addAndGet(-held);
    }
  }

  /**
   * Sets what a connection holds, disconnecting it if over its own limits and the largest
   * connections if the total is over the budget.
   *
   * @param c the connection, on its event loop
   * @param input request bytes it holds
   * @param output unsent reply bytes it holds
   * @return whether c is still connected
   */
  boolean update(ClientConnection c, long input, long output) {
    if (input > queryLimit) {
      c.disconnect(Reason.QUERY_LIMIT, input + " request bytes held, limit " + queryLimit);
      return false;
    }
    if (output > outputLimit) {
      c.disconnect(Reason.OUTPUT_LIMIT, output + " reply bytes unsent, limit " + outputLimit);
      return false;
    }
    long now = input + output;
    long before = c.held.get();
    if (before == now) {
      return !c.disconnected();
    }
    if (before == ClientConnection.RELEASED || !c.held.compareAndSet(before, now)) {
      return false;
    }
    long total = used.addAndGet(now - before);
    if (total > budget) {
      evict();
    } else if (now > before) {
      peak.accumulateAndGet(total, Math::max);
    }
    return !c.disconnected();
  }

  /** Disconnects the connections holding the most until the total is within the budget. */
  private synchronized void evict() {
    while (used.get() > budget) {
      ClientConnection largest = null;
      long most = 0;
      for (ClientConnection c : open) {
        long held = c.held.get();
        if (held > most) {
          most = held;
          largest = c;
        }
      }
      if (largest == null) {
        return;
      }
      long held = largest.held.getAndSet(ClientConnection.RELEASED);
      if (held <= 0) {
        continue;
      }
      open.remove(largest);
      long total = used.addAndGet(-held);
      largest.disconnect(
          Reason.BUDGET,
          held
              + " bytes held, the most of any client, while"
              + " clients held "
              + (total + held)
              + " in all, budget "
              + budget);
    }
  }

  /** Counts and logs (rate-limited) a connection closed for a limit. */
  void disconnected(ClientConnection c, Reason reason, String detail) {
    disconnections.get(reason).increment();
    long held = log.permit();
    if (held >= 0) {
      LOG.log(
          System.Logger.Level.WARNING,
          "client "
              + c.address()
              + " disconnected: "
              + reason.setting()
              + " reached ("
              + detail
              + ")"
              + (held > 0
                  ? "; "
                      + held
                      + " more clients disconnected for memory since the last"
                      + " message"
                  : ""));
    }
  }
}
