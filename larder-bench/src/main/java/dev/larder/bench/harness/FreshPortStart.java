package dev.larder.bench.harness;

import java.io.IOException;

/**
 * Starts a server on ports that were found free a moment before it binds them, and starts it again
 * on fresh ports when one was taken in between (by another helper's build, a client's outgoing
 * connection, another benchmark's server): a bounded number of times, since a port is taken in that
 * moment only rarely, and a server that cannot bind several fresh ports in a row has another
 * problem. Any other failure is thrown at once. Stateless.
 */
public final class FreshPortStart {

  /** How many times a start may find a port taken and move to fresh ones. */
  public static final int ATTEMPTS = 5;

  private FreshPortStart() {}

  /** One start of a server: it chooses its ports (from a {@link PortSource}) and binds them. */
  @FunctionalInterface
  public interface Attempt<T> {
    /**
     * Chooses ports, starts the server on them and waits until it answers.
     *
     * @return the started server
     * @throws Exception if it did not start; a port taken says so (see {@link #portTaken})
     */
    T start() throws Exception;
  }

  /**
   * Runs {@code attempt} until it returns, at most {@value #ATTEMPTS} times; an attempt that failed
   * because a port was taken is followed by another (which chooses fresh ports), any other failure
   * is thrown at once, and so is the last attempt's.
   *
   * @param what the server's name, for the line each move writes to standard error
   * @return what the successful attempt returned
   * @throws Exception the failure of an attempt that was not a port taken, or of the last attempt
   */
  public static <T> T start(String what, Attempt<T> attempt) throws Exception {
    for (int n = 1; ; n++) {
      try {
        return attempt.start();
      } catch (Exception e) {
        if (n == ATTEMPTS || !portTaken(e)) {
          throw e;
        }
        System.err.println(
            what + " could not bind (attempt " + n + "; fresh ports): " + e.getMessage());
      }
    }
  }

  /**
   * Whether a failure (or one of its causes) says a port was taken: the kernel's "Address already
   * in use" (redis-server's and memcached's log lines, Java's {@link java.net.BindException}),
   * Larder's "the port is in use" (its listeners) or JGroups' "No available port to bind" (its
   * cluster channels).
   */
  public static boolean portTaken(Throwable e) {
    // a bounded walk: a chain of causes can be made to loop
    Throwable t = e;
    for (int depth = 0; t != null && depth < 32; depth++, t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      if (m.contains("Address already in use")
          || m.contains("the port is in use")
          || m.contains("No available port to bind")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Where a starter takes the ports it then binds: {@link LoopbackChild#freePortWith} in the
   * benchmarks; a test hands out a port it holds first, to show that the start still succeeds.
   */
  @FunctionalInterface
  public interface PortSource {
    /** The benchmarks' source: ports below the ephemeral range, free a moment ago. */
    PortSource FREE = LoopbackChild::freePortWith;

    /**
     * Returns a port p that was free a moment ago, whose port p + {@code offset} was free too.
     *
     * @param offset 0 for one port, or the distance of a second port the server binds
     * @throws IOException if none can be found
     */
    int freePortWith(int offset) throws IOException;

    /** Returns a port that was free a moment ago. */
    default int freePort() throws IOException {
      return freePortWith(0);
    }
  }
}
