package dev.larder.cluster.internal.tx;

import dev.larder.tx.internal.KeyRef;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jgroups.Address;

/**
 * The members of an epoch a commit asks, other than its originator (docs/design/
 * cluster-transactions.md, "Participants and deciders"). Immutable.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Participants</b> (PREPARE, APPLY, ABORT): the originator, every owner of a written key
 * (each holds the key's pending write, and only owners serve reads of the key, so every member that
 * may serve a read of the key takes part in the commit's timestamp), and the primary of every key
 * the transaction validates (it checks and locks the key, and must learn the commit timestamp
 * before it releases the lock). In REPLICATED mode every member owns every key: all of them.
 *
 * <p><b>Deciders</b> (DECIDE): the participants, and further members of the epoch until they are a
 * majority of the configured members, since a decision is chosen once a majority logged it. The
 * further ones are taken in the epoch's member order from an offset that varies per transaction, so
 * that no member logs every decision. They log the decision and report it to the next
 * reconfiguration, holding no write.
 *
 * @param participants the participants, the originator excluded
 * @param deciders the deciders, the originator excluded (the participants first)
 */
record Participants(List<Address> participants, List<Address> deciders) {

  /**
   * @param self the originator's member id (a member of {@code e})
   * @param writes the written keys
   * @param validated the keys read that PREPARE checks (none under SNAPSHOT isolation)
   * @param majority a majority of the configured members
   * @param spread any number that varies between transactions (chooses the further deciders)
   */
  static Participants of(
      Epoch e,
      long self,
      List<TxFrame.Write> writes,
      List<KeyRef> validated,
      int majority,
      long spread) {
    Set<Long> ids = new LinkedHashSet<>();
    ids.add(self);
    for (TxFrame.Write w : writes) {
      for (long id : e.ownersOf(e.segmentOf(w.key()))) {
        ids.add(id);
      }
    }
    for (KeyRef k : validated) {
      long[] owners = e.ownersOf(e.segmentOf(k));
      if (owners.length > 0) {
        ids.add(owners[0]);
      }
    }
    List<Address> participants = addresses(e, ids, self);
    int n = e.members.size();
    int start = (int) Long.remainderUnsigned(spread, Math.max(1, n));
    for (int i = 0; i < n && ids.size() < majority; i++) {
      ids.add(e.members.get((start + i) % n).id());
    }
    return new Participants(participants, addresses(e, ids, self));
  }

  private static List<Address> addresses(Epoch e, Set<Long> ids, long self) {
    List<Address> out = new ArrayList<>(ids.size());
    for (long id : ids) {
      Address a = id == self ? null : e.addressOf(id);
      if (a != null) {
        out.add(a);
      }
    }
    return List.copyOf(out);
  }
}
