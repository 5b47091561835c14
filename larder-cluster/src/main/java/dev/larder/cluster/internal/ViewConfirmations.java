package dev.larder.cluster.internal;

import dev.larder.cluster.PartitionHandling;
import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.CodecException;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jgroups.Address;
import org.jgroups.MergeView;
import org.jgroups.View;
import org.jgroups.util.UUID;

/**
 * Tells the other members of each view this member installs that it installed it, with the last
 * view it was available in (INSTALLED, docs/spec/cluster-wire.md), and hands their reports to
 * {@link Quorum}: under quorum partition handling a view counts for the majority only once more
 * than half of the stable members installed it, and a merge keeps the entries of the members last
 * available in the newest view. Thread-safe.
 *
 * <p>Implementation notes. A view is named by its number and its creator, since a cut of one link
 * can give two views the same number. INSTALLED is sent out-of-band as the member starts installing
 * the view (it installs every view JGroups hands it: a view JGroups refuses never reaches it), and
 * is handled on the delivery thread without a lock but Quorum's, so a member waiting in {@link
 * #beforeInstall} for the others' reports of a merge view never holds up the reports it waits for;
 * {@link Membership} waits off JGroups' thread, which must go on to send the view to the others.
 * Under allow-all nothing is sent.
 */
final class ViewConfirmations {

  private final Quorum quorum;
  private final Messenger messenger;
  private final Supplier<Address> self;

  /**
   * @param quorum what counts the reports
   * @param messenger what sends them
   * @param self this member's address (known once its channel connects)
   */
  ViewConfirmations(Quorum quorum, Messenger messenger, Supplier<Address> self) {
    this.quorum = quorum;
    this.messenger = messenger;
    this.self = self;
  }

  /**
   * Reports {@code view} installed to its other members; for a merge view, then waits (up to the
   * cluster timeout) for theirs. Called on JGroups' view thread, before the view lock is taken.
   *
   * @return for a merge view, each other member's last available view as it reported it (a member
   *     that did not report within the timeout is absent); otherwise empty
   */
  Map<String, Long> beforeInstall(View view) {
    if (quorum.handling() != PartitionHandling.QUORUM) {
      return Map.of();
    }
    Address me = self.get();
    Frame f = frame(view, quorum.lastAvailable());
    for (Address a : view.getMembers()) {
      if (!a.equals(me)) {
        messenger.send(a, f, true);
      }
    }
    return waitsFor(view) ? quorum.awaitReports(view, me, messenger.deadline()) : Map.of();
  }

  /** Whether {@link #beforeInstall} waits for the other members' reports of {@code view}. */
  boolean waitsFor(View view) {
    return view instanceof MergeView && quorum.handling() == PartitionHandling.QUORUM;
  }

  /** An INSTALLED from another member, on the delivery thread (before the first view too). */
  void onInstalled(Address from, Frame f) {
    if (f.names().size() != 1 || f.value() == null || f.value().length != Long.BYTES) {
      throw new CodecException("malformed INSTALLED frame");
    }
    long lastAvailable = new ByteSource(f.value(), 0, Long.BYTES).readLong();
    quorum.report(
        new Quorum.ViewKey(f.viewId(), f.names().get(0)), Messenger.name(from), lastAvailable);
  }

  /** The INSTALLED frame of a view, for a member last available in view {@code lastAvailable}. */
  static Frame frame(View view, long lastAvailable) {
    ByteSink value = new ByteSink(Long.BYTES);
    value.writeLong(lastAvailable);
    return new Frame(
        Frame.T_INSTALLED,
        0,
        view.getViewId().getId(),
        0,
        0,
        null,
        value.toByteArray(),
        null,
        Frame.NO_INTS,
        List.of(creatorOf(view)),
        List.of());
  }

  /**
   * A view's creator in a form every member prints alike: a UUID's long form (not its logical name,
   * which a member may not have learnt yet).
   */
  static String creatorOf(View view) {
    Address creator = view.getCreator();
    return creator instanceof UUID u ? u.toStringLong() : String.valueOf(creator);
  }
}
