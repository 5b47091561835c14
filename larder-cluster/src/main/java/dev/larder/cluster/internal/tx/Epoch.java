package dev.larder.cluster.internal.tx;

import dev.larder.cluster.KeyPartitioner;
import dev.larder.tx.internal.KeyRef;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.util.UUID;

/**
 * An established configuration: its number, the ballot that established it, its members (each must
 * vote on every transaction of the epoch) and the owners of each segment among them: the {@code
 * owners} members with the highest rendezvous scores for the segment (all members when {@code
 * owners} is at least their number, as in REPLICATED mode), the first of them its primary. A key's
 * segment is the cluster's {@link KeyPartitioner}'s when one is set (a server's slots then map onto
 * segments whole), else a hash of its encoded bytes. Immutable.
 */
final class Epoch {

  /** Every member owns every segment (REPLICATED). */
  static final int ALL = Integer.MAX_VALUE;

  /** Before any epoch was installed. */
  static final Epoch NONE = new Epoch(0, Ballot.ZERO, List.of(), 1, ALL, null);

  final long number;
  final Ballot ballot;
  final List<TxFrame.Member> members;

  /** Per segment, the ids of its owners, highest score first (the primary). */
  private final long[][] ownersOfSegment;

  /** Maps encoded keys to segments; null for {@link #segmentOf(byte[], int)}'s hash. */
  private final KeyPartitioner partitioner;

  /**
   * @param partitioner the cluster's partitioner, or null for the hash of the key's bytes
   */
  Epoch(
      long number,
      Ballot ballot,
      List<TxFrame.Member> members,
      int segments,
      int owners,
      KeyPartitioner partitioner) {
    this.number = number;
    this.partitioner = partitioner;
    this.ballot = ballot;
    this.members = List.copyOf(members);
    this.ownersOfSegment = new long[segments][];
    int k = Math.min(owners, this.members.size());
    for (int s = 0; s < segments; s++) {
      ownersOfSegment[s] = owners(s, k);
    }
  }

  /** Rendezvous hashing over member ids: the {@code k} highest {@code mix(id, segment)} win. */
  private long[] owners(int segment, int k) {
    int n = members.size();
    long[] ids = new long[n];
    long[] scores = new long[n];
    for (int i = 0; i < n; i++) {
      ids[i] = members.get(i).id();
      scores[i] = mix(mix(ids[i]) ^ (segment * 0x9E3779B97F4A7C15L));
    }
    long[] out = new long[k];
    boolean[] taken = new boolean[n];
    for (int j = 0; j < k; j++) {
      int best = -1;
      for (int i = 0; i < n; i++) {
        if (!taken[i] && (best < 0 || Long.compareUnsigned(scores[i], scores[best]) > 0)) {
          best = i;
        }
      }
      taken[best] = true;
      out[j] = ids[best];
    }
    return out;
  }

  int segments() {
    return ownersOfSegment.length;
  }

  boolean isPrimary(long memberId, KeyRef key) {
    long[] o = ownersOfSegment[segmentOf(key)];
    return o.length > 0 && o[0] == memberId;
  }

  boolean isOwner(long memberId, KeyRef key) {
    return ownsSegment(memberId, segmentOf(key));
  }

  boolean ownsSegment(long memberId, int segment) {
    for (long id : ownersOfSegment[segment]) {
      if (id == memberId) {
        return true;
      }
    }
    return false;
  }

  /** Returns the segment's owners' ids, primary first (a copy). */
  long[] ownersOf(int segment) {
    return ownersOfSegment[segment].clone();
  }

  int segmentOf(KeyRef key) {
    return partitioner == null
        ? segmentOf(key.key(), ownersOfSegment.length)
        : partitioner.segmentOf(key.key(), ownersOfSegment.length);
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

  /** Returns the address of the member with this id, or null if it is not a member. */
  Address addressOf(long id) {
    for (TxFrame.Member m : members) {
      if (m.id() == id) {
        return address(m);
      }
    }
    return null;
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
