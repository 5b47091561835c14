package dev.larder.server.internal.resp;

import java.util.ArrayDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * CLIENT PAUSE's state, shared by every RESP connection of a server: whether commands are held back
 * now, which ones, until when, and the connections waiting for the pause to end.
 *
 * <p>Implementation notes. As Redis 7.0 does, a command is held back when it is about to run (after
 * the checks that answer at once: unknown command, arity, authentication, ACL, redirection, the
 * RESP2 subscriber context; before MULTI queues it): under {@code ALL} every command, under {@code
 * WRITE} those that write or may replicate (PUBLISH), and EXEC when its queue holds one. The
 * connection then runs nothing more ({@link RespSession#postpone}) until the pause ends, when its
 * held command is run again from the start (and may be held again by a later pause); connections
 * resume in the order they were held. A pause given while one is in force makes it as strict as the
 * stricter of the two and as long as the longer; {@code CLIENT PAUSE 0} is a pause that has already
 * ended. It ends at its deadline (a task on the server's scheduler) or at CLIENT UNPAUSE.
 *
 * <p>Concurrency: the mode, deadline and queue are guarded by this object's monitor; a command's
 * check takes it only while a pause is in force ({@link #active}, one volatile read otherwise). A
 * connection is queued in the same monitor hold as the check that holds it back, so an unpause
 * either precedes the check (the command runs) or resumes the connection. Resuming runs on each
 * connection's own event loop.
 *
 * <p>What is not paused, unlike Redis: expiry (keys past their deadline are removed when read or
 * swept during a pause, where Redis keeps them) and the store's eviction, which runs inside writes;
 * memcached and HTTP clients.
 */
public final class ClientPause {
  /** What a pause holds back, from least to most restrictive. */
  enum Mode {
    OFF,
    WRITE,
    ALL
  }

  private final ScheduledExecutorService scheduler;
  private final ArrayDeque<RespSession> held = new ArrayDeque<>();
  private volatile boolean active;
  private Mode mode = Mode.OFF;
  private long endMillis;

  /**
   * @param scheduler ends pauses at their deadline
   */
  public ClientPause(ScheduledExecutorService scheduler) {
    this.scheduler = scheduler;
  }

  /**
   * Pauses until a deadline; a pause in force is made at least as strict and as long.
   *
   * @param deadline Unix milliseconds; one in the past ends at once
   * @param how WRITE or ALL
   */
  // The deadline task is not cancelled when a pause ends early: it then finds nothing to end.
  @SuppressWarnings("FutureReturnValueIgnored")
  synchronized void pause(long deadline, Mode how) {
    long now = System.currentTimeMillis();
    if (mode == Mode.OFF || endMillis < now) {
      mode = how;
      endMillis = deadline;
    } else {
      mode = how.compareTo(mode) > 0 ? how : mode;
      endMillis = Math.max(endMillis, deadline);
    }
    if (endMillis < now) {
      end();
      return;
    }
    active = true;
    scheduler.schedule(this::endIfDue, endMillis - now + 1, TimeUnit.MILLISECONDS);
  }

  /** Ends the pause in force, if any, and resumes the connections it held. */
  synchronized void unpause() {
    end();
  }

  private synchronized void endIfDue() {
    if (mode != Mode.OFF && endMillis < System.currentTimeMillis()) {
      end();
    }
  }

  private void end() {
    mode = Mode.OFF;
    active = false;
    for (RespSession s; (s = held.poll()) != null; ) {
      s.resumePostponed();
    }
  }

  /**
   * Holds the command back if a pause in force covers it: the session is queued and must then stop
   * running requests ({@link RespSession#postpone}). Called on the session's event loop.
   *
   * @param s the connection
   * @param cmd the command about to run
   * @return whether it is held back
   */
  boolean holds(RespSession s, RespCommand cmd) {
    if (!active) {
      return false;
    }
    synchronized (this) {
      if (endMillis < System.currentTimeMillis()) {
        end();
        return false;
      }
      boolean covered = mode == Mode.ALL || (mode == Mode.WRITE && writes(s, cmd));
      if (covered) {
        held.add(s);
      }
      return covered;
    }
  }

  /** Forgets a connection that closed while held. */
  synchronized void forget(RespSession s) {
    held.remove(s);
  }

  /** Returns the number of connections held (counted in INFO's {@code blocked_clients}). */
  public synchronized int heldCount() {
    return held.size();
  }

  /**
   * Whether a command writes or may replicate, as WRITE pauses see it: a write, PUBLISH, or EXEC of
   * a queue holding one.
   */
  private static boolean writes(RespSession s, RespCommand cmd) {
    if (cmd.name().equals("exec")) {
      if (s.queued == null) {
        return false;
      }
      for (RespFrame.Command queued : s.queued) {
        RespCommand q = s.lookup(queued.args().getFirst()).command();
        if (q != null && writes(q)) {
          return true;
        }
      }
      return false;
    }
    return writes(cmd);
  }

  private static boolean writes(RespCommand cmd) {
    return cmd.flags().contains(RespCommand.Flag.WRITE) || cmd.name().equals("publish");
  }

  /** Returns the mode named by CLIENT PAUSE's optional argument, or null if it names none. */
  static Mode mode(String word) {
    return switch (word) {
      case "write" -> Mode.WRITE;
      case "all" -> Mode.ALL;
      default -> null;
    };
  }
}
