package dev.larder.cluster.internal.tx;

import dev.larder.tx.internal.KeyRef;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.util.UUID;

/**
 * An established configuration: its number, the ballot that established it, its members (each must
 * vote on every transaction of the epoch) and the primary of each segment among them. Immutable.
 */
final class Epoch {

  /** Before any epoch was installed. */
  static final Epoch NONE = new Epoch(0, Ballot.ZERO, List.of(), 1);

  final long number;
  final Ballot ballot;
  final List<TxFrame.Member> members;
  private final long[] primaryOfSegment;

  Epoch(long number, Ballot ballot, List<TxFrame.Member> members, int segments) {
    this.number = number;
    this.ballot = ballot;
    this.members = List.copyOf(members);
    this.primaryOfSegment = new long[segments];
    for (int s = 0; s < segments; s++) {
      primaryOfSegment[s] = primary(s);
    }
  }

  /** Rendezvous hashing over member ids: the highest {@code mix(id, segment)} wins. */
  private long primary(int segment) {
    long best = 0;
    long bestScore = 0;
    boolean any = false;
    for (TxFrame.Member m : members) {
      long score = mix(mix(m.id()) ^ (segment * 0x9E3779B97F4A7C15L));
      if (!any || Long.compareUnsigned(score, bestScore) > 0) {
        best = m.id();
        bestScore = score;
        any = true;
      }
    }
    return best;
  }

  boolean isPrimary(long memberId, KeyRef key) {
    return primaryOfSegment[segmentOf(key.key(), primaryOfSegment.length)] == memberId;
  }

  static int segmentOf(byte[] key, int segments) {
    long h = 0xCBF29CE484222325L;
    for (byte b : key) {
      h = (h ^ (b & 0xFF)) * 0x100000001B3L;
    }
    return (int) Long.remainderUnsigned(mix(h), segments);
  }

  /** The 64-bit finalizer of MurmurHash3. */
  static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
    z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return z ^ (z >>> 33);
  }

  static Address address(TxFrame.Member m) {
    return new UUID(m.addressMost(), m.addressLeast());
  }

  List<Address> addresses() {
    return members.stream().map(Epoch::address).toList();
  }

  boolean hasMember(long id) {
    return members.stream().anyMatch(m -> m.id() == id);
  }

  @Override
  public String toString() {
    return "epoch " + number + " (ballot " + ballot + ", " + members.size() + " members)";
  }
}
