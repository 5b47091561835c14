package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.jgroups.Address;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

/** A lease holds with grants from a majority, counted from the requests they answer, per epoch. */
class ReadLeaseTest {

  private static final Ballot B = new Ballot(3, 1);
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);

  @Test
  void aLeaseNeedsGrantsFromAMajorityWithThisMemberCounted() {
    ReadLease lease = new ReadLease(3, HOUR); // 5 members: this one and two others
    lease.track(4, B);
    long now = System.nanoTime();
    Address a = UUID.randomUUID();
    assertFalse(lease.holdsIn(4), "no grant");
    lease.granted(a, 4, B, now);
    lease.granted(a, 4, B, now + 1);
    assertFalse(lease.holdsIn(4), "two grants of one member count once");
    lease.granted(UUID.randomUUID(), 4, B, now);
    assertTrue(lease.holdsIn(4));
    assertFalse(lease.holdsIn(5), "in another epoch");
  }

  @Test
  void aGrantCountsFromItsRequestAndOnlyInItsEpoch() {
    ReadLease lease = new ReadLease(2, TimeUnit.SECONDS.toNanos(10));
    lease.track(4, B);
    Address a = UUID.randomUUID();
    // answered now, asked 11 s ago: already ran out, however fresh its arrival
    lease.granted(a, 4, B, System.nanoTime() - TimeUnit.SECONDS.toNanos(11));
    assertFalse(lease.holdsIn(4), "a grant counted from its arrival");
    lease.granted(a, 4, new Ballot(4, 1), System.nanoTime());
    assertFalse(lease.holdsIn(4), "a grant of another ballot counted");
    lease.granted(a, 5, B, System.nanoTime());
    assertFalse(lease.holdsIn(4), "a grant of another epoch counted");
    lease.granted(a, 4, B, System.nanoTime());
    assertTrue(lease.holdsIn(4));
    lease.track(5, new Ballot(4, 1));
    assertFalse(lease.holdsIn(4), "the old epoch's lease outlived the epoch change");
    assertFalse(lease.holdsIn(5), "the old epoch's grants counted in the new one");
  }

  @Test
  void aSingleMemberClusterNeedsNoGrant() {
    ReadLease lease = new ReadLease(1, TimeUnit.SECONDS.toNanos(1));
    lease.track(1, B);
    assertTrue(lease.holdsIn(1));
  }
}
