package dev.larder.cluster.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.util.UUID;

/**
 * Which members own which segments, for one view.
 *
 * <p>Implementation notes: keys map to one of a fixed number of segments by a 64-bit hash of their
 * bytes. Each segment's owners are the members with the highest rendezvous score {@code
 * mix(memberHash, segment)} (highest random weight hashing): every member computes the same owners
 * from the same member list, and a join or leave moves only the segments whose top {@code owners}
 * change (about {@code owners/n} of them). The first owner is the primary. A member's hash comes
 * from its JGroups UUID, which is the same on every member.
 */
final class ConsistentHash {

  private final List<Address> members;
  private final Address[][] owners;

  ConsistentHash(List<Address> members, int segments, int ownerCount) {
    this.members = List.copyOf(members);
    int n = Math.min(ownerCount, members.size());
    long[] hashes = members.stream().mapToLong(ConsistentHash::memberHash).toArray();
    owners = new Address[segments][];
    for (int s = 0; s < segments; s++) {
      owners[s] = topOwners(s, n, hashes);
    }
  }

  private Address[] topOwners(int segment, int n, long[] hashes) {
    Integer[] order = new Integer[members.size()];
    long[] scores = new long[members.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
      scores[i] = mix(hashes[i] ^ (segment * 0x9E3779B97F4A7C15L));
    }
    Arrays.sort(order, (a, b) -> Long.compareUnsigned(scores[b], scores[a]));
    Address[] top = new Address[n];
    for (int i = 0; i < n; i++) {
      top[i] = members.get(order[i]);
    }
    return top;
  }

  static int segmentOf(byte[] key, int segments) {
    long h = 0xCBF29CE484222325L;
    for (byte b : key) {
      h = (h ^ (b & 0xFF)) * 0x100000001B3L;
    }
    return (int) Long.remainderUnsigned(mix(h), segments);
  }

  private static long memberHash(Address a) {
    if (a instanceof UUID u) {
      return mix(u.getMostSignificantBits() * 31 + u.getLeastSignificantBits());
    }
    return mix(a.toString().hashCode());
  }

  /** The 64-bit finalizer of MurmurHash3. */
  static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
    z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return z ^ (z >>> 33);
  }

  List<Address> members() {
    return members;
  }

  int segments() {
    return owners.length;
  }

  Address primary(int segment) {
    return owners[segment][0];
  }

  /** Returns the owners, primary first; do not modify. */
  Address[] owners(int segment) {
    return owners[segment];
  }

  boolean isOwner(Address a, int segment) {
    for (Address o : owners[segment]) {
      if (o.equals(a)) {
        return true;
      }
    }
    return false;
  }

  List<Address> backups(int segment) {
    return new ArrayList<>(Arrays.asList(owners[segment]).subList(1, owners[segment].length));
  }
}
