package dev.larder.cluster.internal;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jgroups.Address;

/**
 * Outstanding requests, each waiting for replies from a set of members. Thread-safe.
 *
 * <p>A call completes when every awaited member replied or left the view; members that left are
 * reported apart ({@link Call#left}), so that a caller can tell "answered" from "gone".
 */
final class Calls {

  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, Call> open = new ConcurrentHashMap<>();

  /** One outstanding request. */
  static final class Call {
    final long id;
    private final Set<Address> awaiting;
    final Map<Address, Frame> replies = new HashMap<>();
    final Set<Address> left = new HashSet<>();

    /** Runs once every awaited member answered or left; null until set, and once run. */
    private Runnable whenDone;

    Call(long id, Set<Address> awaiting) {
      this.id = id;
      this.awaiting = new HashSet<>(awaiting);
    }

    void reply(Address from, Frame frame) {
      Runnable done;
      synchronized (this) {
        if (!awaiting.remove(from)) {
          return;
        }
        replies.put(from, frame);
        notifyAll();
        done = takeIfDone();
      }
      run(done);
    }

    void retain(Set<Address> members) {
      Runnable done;
      synchronized (this) {
        for (var it = awaiting.iterator(); it.hasNext(); ) {
          Address a = it.next();
          if (!members.contains(a)) {
            it.remove();
            left.add(a);
          }
        }
        notifyAll();
        done = takeIfDone();
      }
      run(done);
    }

    /**
     * Runs {@code task} once every awaited member answered or left: at once, on this thread, if
     * they have; else on the thread that delivers the last reply or the view without the last
     * member (JGroups' delivery thread, which it must not block). At most one task per call.
     */
    void whenDone(Runnable task) {
      synchronized (this) {
        whenDone = task;
        task = takeIfDone();
      }
      run(task);
    }

    private Runnable takeIfDone() {
      if (!awaiting.isEmpty() || whenDone == null) {
        return null;
      }
      Runnable t = whenDone;
      whenDone = null;
      return t;
    }

    // outside the monitor: the task may take other locks
    private static void run(Runnable task) {
      if (task != null) {
        task.run();
      }
    }

    /** Returns true if every awaited member answered or left before the deadline. */
    synchronized boolean await(long deadlineNanos) throws InterruptedException {
      while (!awaiting.isEmpty()) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }

    synchronized Set<Address> awaiting() {
      return new HashSet<>(awaiting);
    }

    synchronized Map<Address, Frame> replies() {
      return new HashMap<>(replies);
    }

    /** Returns whether every reply so far is {@link Frame#S_OK}, without copying them. */
    synchronized boolean allRepliesOk() {
      for (Frame f : replies.values()) {
        if (f.op() != Frame.S_OK) {
          return false;
        }
      }
      return true;
    }

    /** Returns whether an awaited member left the view instead of answering. */
    synchronized boolean anyLeft() {
      return !left.isEmpty();
    }

    synchronized Set<Address> leftMembers() {
      return new HashSet<>(left);
    }
  }

  Call open(Set<Address> awaiting) {
    long id = ids.incrementAndGet();
    Call call = new Call(id, awaiting);
    open.put(id, call);
    return call;
  }

  void close(Call call) {
    open.remove(call.id);
  }

  void reply(Address from, Frame frame) {
    Call call = open.get(frame.reqId());
    if (call != null) {
      call.reply(from, frame);
    }
  }

  /** A new view: members not in it will never answer. */
  void retain(Set<Address> members) {
    for (Call call : open.values()) {
      call.retain(members);
    }
  }
}
