package dev.larder.cluster.internal;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jgroups.Address;

/**
 * The operator's way out of a wait that will not end. A durable member that owns a segment whose
 * every holder of the newest record has left waits for one to return ({@link Formation},
 * "pending"), refusing the segment's reads and writes meanwhile; if those holders' records are gone
 * for good (a lost disk), the wait never ends. {@link #abandonEverywhere} gives up those records on
 * every member of the view at once (ABANDON), and each segment then starts empty on its owners,
 * which record it and tell the others (HELD), so that it is no longer pending anywhere.
 * Thread-safe.
 *
 * <p>Implementation notes. Only segments that no member of the view served when last asked are
 * given up ({@link StateTransfer#unserved}); a segment still being received from a holder present
 * in the view completes from it as before. A member that has no record, or has not settled, gives
 * up nothing. Giving up counts each segment in {@code segmentsLost} and is logged as an error,
 * since the acknowledged writes only those records held are lost.
 */
final class WaitingSegments {

  private final Membership membership;
  private final Messenger messenger;
  private final StateTransfer transfer;

  /** A durable member's start and epochs, or null (then nothing is ever waited for). */
  private final Formation formation;

  WaitingSegments(
      Membership membership, Messenger messenger, StateTransfer transfer, Formation formation) {
    this.membership = membership;
    this.messenger = messenger;
    this.transfer = transfer;
    this.formation = formation;
  }

  /** Returns the segments this member waits for now (no member of its view served them). */
  List<Integer> here() {
    return formation == null ? List.of() : List.copyOf(transfer.unserved());
  }

  /**
   * Gives up, on every member of the view, the records of the segments it waits for; waits for
   * every member's answer (until the cluster timeout).
   *
   * @return the segments given up somewhere, in order (each starts empty within a few hundred ms)
   * @throws dev.larder.cluster.ClusterTimeoutException if a member did not answer in time (what it
   *     gave up is then not counted)
   */
  List<Integer> abandonEverywhere() {
    Set<Integer> out = new TreeSet<>(abandonHere());
    Frame ask = Frame.of(Frame.T_ABANDON, 0, membership.topology().viewId());
    for (Map.Entry<Address, Frame> e : messenger.broadcast(ask, true, true, "abandon").entrySet()) {
      Frame r = e.getValue();
      if (r != null && r.op() == Frame.S_OK) {
        for (int s : r.ints()) {
          out.add(s);
        }
      }
    }
    return List.copyOf(out);
  }

  /** An ABANDON from another member, on a worker: answered with the segments given up here. */
  void onAbandon(Address from, Frame f) {
    int[] given = abandonHere().stream().mapToInt(Integer::intValue).toArray();
    messenger.reply(
        from,
        f.reqId(),
        new Frame(
            Frame.T_REPLY,
            f.reqId(),
            membership.topology().viewId(),
            Frame.S_OK,
            0,
            null,
            null,
            null,
            given,
            List.of(),
            List.of()));
  }

  private List<Integer> abandonHere() {
    return formation == null ? List.of() : formation.abandon(transfer.unserved());
  }
}
