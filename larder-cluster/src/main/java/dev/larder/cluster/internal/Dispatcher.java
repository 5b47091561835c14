package dev.larder.cluster.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.jgroups.Address;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;

/**
 * Receives what JGroups delivers to this member and hands it on: views to {@link Membership},
 * replies to {@link Messenger}, every other frame to the handler routed for its type. Each concern
 * routes the frame types it handles when the member is assembled, so a new kind of request adds a
 * route, not a branch here. Thread-safe.
 *
 * <p>Implementation notes.
 *
 * <ul>
 *   <li><b>Threads</b>: a frame whose handler never blocks on another member (backup writes, state
 *       chunks, invalidations, async writes) is handled on JGroups' delivery thread, so regular
 *       messages are applied in their per-sender order. A request that may wait (sync writes,
 *       reads, pulls, clears, scans) arrived out-of-band and is handled on a worker (a virtual
 *       thread), so a waiting request never holds up the ordered stream that would answer it.
 *   <li><b>Before the first view</b>: a joiner can receive messages from members that installed the
 *       view with it before it has installed that view itself. Replies are handled as always; any
 *       other frame goes to its route's early handler, which by default asks the sender to retry (a
 *       request that wants no answer is dropped).
 *   <li><b>After close</b> every message is dropped; malformed frames are logged and dropped; a
 *       frame of a type nothing routes is logged (before the first view: dropped quietly).
 * </ul>
 */
final class Dispatcher implements Receiver {

  private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

  /** Handles one frame from one member. */
  @FunctionalInterface
  interface Handler {
    void handle(Address from, Frame f);
  }

  /**
   * Where frames of one type go.
   *
   * @param handler handles a frame once this member has a view
   * @param onWorker true to run the handler on a worker, false on the delivery thread
   * @param beforeFirstView handles a frame that arrives before this member's first view (on the
   *     delivery thread)
   */
  private record Route(Handler handler, boolean onWorker, Handler beforeFirstView) {}

  private final Membership membership;
  private final Messenger messenger;
  private final Lifecycle lifecycle;
  private final Executor workers;
  private final Map<Integer, Route> routes = new ConcurrentHashMap<>();

  Dispatcher(Membership membership, Messenger messenger, Lifecycle lifecycle, Executor workers) {
    this.membership = membership;
    this.messenger = messenger;
    this.lifecycle = lifecycle;
    this.workers = workers;
  }

  /** Routes a type to a handler on the delivery thread; early frames are asked to retry. */
  Dispatcher onDelivery(int type, Handler handler) {
    return onDelivery(type, handler, this::askToRetry);
  }

  /** Routes a type to a handler on the delivery thread, with its own early handler. */
  Dispatcher onDelivery(int type, Handler handler, Handler beforeFirstView) {
    return route(type, new Route(handler, false, beforeFirstView));
  }

  /** Routes a type to a handler on a worker; early frames are asked to retry. */
  Dispatcher onWorker(int type, Handler handler) {
    return onWorker(type, handler, this::askToRetry);
  }

  /** Routes a type to a handler on a worker, with its own early handler. */
  Dispatcher onWorker(int type, Handler handler, Handler beforeFirstView) {
    return route(type, new Route(handler, true, beforeFirstView));
  }

  /**
   * @throws IllegalStateException if the type is routed already
   */
  private Dispatcher route(int type, Route route) {
    if (routes.putIfAbsent(type, route) != null) {
      throw new IllegalStateException("frame type " + type + " is routed already");
    }
    return this;
  }

  /** The early handler that drops a frame: nothing to answer, nothing to keep. */
  static void drop(Address from, Frame f) {}

  private void askToRetry(Address from, Frame f) {
    if (f.reqId() != 0) {
      messenger.reply(from, f.reqId(), Frame.reply(f.reqId(), 0, Frame.S_RETRY, null));
    }
  }

  @Override
  public void viewAccepted(View view) {
    membership.install(view);
  }

  @Override
  public void receive(Message msg) {
    if (lifecycle.closed()) {
      return;
    }
    Frame f;
    try {
      f = Frame.decode(msg.getArray(), msg.getOffset(), msg.getLength());
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "dropping a malformed frame from " + msg.getSrc(), e);
      return;
    }
    Address from = msg.getSrc();
    if (f.type() == Frame.T_REPLY) {
      messenger.onReply(from, f);
      return;
    }
    Route route = routes.get(f.type());
    if (membership.topology() == null) {
      if (route != null) {
        route.beforeFirstView().handle(from, f);
      }
      return;
    }
    if (route == null) {
      LOG.log(System.Logger.Level.WARNING, "unknown frame type " + f.type());
    } else if (route.onWorker()) {
      workers.execute(() -> route.handler().handle(from, f));
    } else {
      route.handler().handle(from, f);
    }
  }
}
