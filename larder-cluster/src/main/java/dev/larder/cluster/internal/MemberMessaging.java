package dev.larder.cluster.internal;

import dev.larder.cluster.MemberMessages;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.jgroups.Address;

/**
 * An application's own messages between the members (MESSAGE frames, see docs/spec/cluster-wire.md)
 * and the views it is told of. Thread-safe.
 *
 * <p>Implementation notes. A message goes to each other member of the sender's view as a regular
 * unicast (never a multicast: JGroups orders unicasts and multicasts of one sender separately, and
 * every message here must keep the sender's order); the receiver hands it to the {@link
 * MemberMessages} on the delivery thread, which keeps that order, and then answers it if the sender
 * waits. A member that has not installed its first view asks the sender to retry, which the sender
 * takes as an answer: it has no receiver state to bring up to date yet. The receiver hears of views
 * from {@link Membership}'s listeners, after the cache's own (so calls awaiting members that left
 * have already been released), with the members that left since its previous view.
 */
final class MemberMessaging {

  private static final System.Logger LOG = System.getLogger(MemberMessaging.class.getName());

  private final Membership membership;
  private final Messenger messenger;
  private final AtomicReference<MemberMessages> receiver = new AtomicReference<>();

  /** The previous view's members (view thread only). */
  private List<Address> previous = List.of();

  MemberMessaging(Membership membership, Messenger messenger) {
    this.membership = membership;
    this.messenger = messenger;
  }

  /**
   * Sets the receiver of messages and views.
   *
   * @throws IllegalStateException if a receiver was set already
   */
  void onMessages(MemberMessages r) {
    if (!receiver.compareAndSet(null, Objects.requireNonNull(r, "receiver"))) {
      throw new IllegalStateException("this member's message receiver is set already");
    }
  }

  /** Sends a message to every other member of the current view; waits for them if asked. */
  void broadcast(byte[] payload, boolean await) {
    Topology t = membership.topology();
    Frame f =
        new Frame(
            Frame.T_MESSAGE,
            0,
            t == null ? 0 : t.viewId(),
            0,
            0,
            null,
            Objects.requireNonNull(payload, "payload"),
            null,
            Frame.NO_INTS,
            List.of(),
            List.of());
    if (t != null) {
      messenger.broadcast(f, await, false, "a message to every member");
    }
  }

  /** A MESSAGE frame arrived (delivery thread, in the sender's order). */
  void onMessage(Address from, Frame f) {
    MemberMessages r = receiver.get();
    if (r != null && f.value() != null) {
      try {
        r.received(Messenger.name(from), f.value());
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "the message receiver threw", e);
      }
    }
    Topology t = membership.topology();
    messenger.reply(
        from, f.reqId(), Frame.reply(f.reqId(), t == null ? 0 : t.viewId(), Frame.S_OK, null));
  }

  /** A view was installed (view thread). */
  void onView(Membership.ViewChange change) {
    List<Address> current = change.topology().view().getMembers();
    // by address, not name: a member that crashed and came back under its name between two views
    // of this one has left too (what it sent before the crash may be lost)
    List<Address> gone = new ArrayList<>(previous);
    gone.removeAll(current);
    previous = List.copyOf(current);
    List<String> members = Messenger.names(current.toArray(Address[]::new));
    List<String> left = Messenger.names(gone.toArray(Address[]::new));
    MemberMessages r = receiver.get();
    if (r != null) {
      try {
        r.viewChanged(members, left, change.merge());
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "the message receiver threw on a view", e);
      }
    }
  }
}
