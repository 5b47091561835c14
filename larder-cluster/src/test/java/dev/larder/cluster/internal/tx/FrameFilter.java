package dev.larder.cluster.internal.tx;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;
import org.jgroups.Address;
import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;

/**
 * A JGroups protocol for tests, put at the top of a member's stack: drops, sends late, or holds
 * until released, the TX frames it sends that a predicate names (by destination and frame), before
 * any layer that would retransmit them. Thread-safe.
 */
final class FrameFilter extends Protocol {

  private volatile BiPredicate<Address, TxFrame> drop = (a, f) -> false;
  private volatile BiPredicate<Address, TxFrame> delay = (a, f) -> false;
  private volatile long delayMillis;
  private BiPredicate<Address, TxFrame> hold = (a, f) -> false; // guarded by this
  private final java.util.List<Message> held = new java.util.ArrayList<>(); // guarded by this
  // counted from every sending thread at once
  private final AtomicInteger dropped = new AtomicInteger();
  private final java.util.concurrent.ScheduledExecutorService later =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "frame-filter-delay");
            t.setDaemon(true);
            return t;
          });

  static FrameFilter install(ClusterTxEngine engine) throws Exception {
    FrameFilter f = new FrameFilter();
    ProtocolStack stack = engine.channel().getProtocolStack();
    stack.insertProtocol(f, ProtocolStack.Position.ABOVE, stack.getTopProtocol().getClass());
    return f;
  }

  void drop(BiPredicate<Address, TxFrame> predicate) {
    this.drop = predicate;
  }

  /** Sends the frames {@code predicate} names {@code millis} late. */
  void delay(BiPredicate<Address, TxFrame> predicate, long millis) {
    this.delayMillis = millis;
    this.delay = predicate;
  }

  /** Keeps the frames {@code predicate} names until {@link #release}. */
  synchronized void hold(BiPredicate<Address, TxFrame> predicate) {
    this.hold = predicate;
  }

  /** Returns how many frames are held now. */
  synchronized int held() {
    return held.size();
  }

  /** Stops holding, and sends every held frame in the order it was held. */
  void release() {
    java.util.List<Message> out;
    synchronized (this) {
      hold = (a, f) -> false;
      out = java.util.List.copyOf(held);
      held.clear();
    }
    for (Message m : out) {
      down_prot.down(m);
    }
  }

  int dropped() {
    return dropped.get();
  }

  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // a delayed send's outcome is its arrival
  public Object down(Message msg) {
    if (msg.getLength() > 0 && msg.getArray() != null) {
      TxFrame f;
      try {
        f = TxFrame.decode(msg.getArray(), msg.getOffset(), msg.getLength());
      } catch (RuntimeException notAFrame) {
        return down_prot.down(msg);
      }
      if (drop.test(msg.getDest(), f)) {
        dropped.incrementAndGet();
        return null;
      }
      synchronized (this) {
        if (hold.test(msg.getDest(), f)) {
          held.add(msg);
          return null;
        }
      }
      if (delay.test(msg.getDest(), f)) {
        later.schedule(
            () -> down_prot.down(msg), delayMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
        return null;
      }
    }
    return down_prot.down(msg);
  }
}
