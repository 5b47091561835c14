package dev.larder.server.internal.cluster;

import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.MemberMessages;
import dev.larder.server.internal.pubsub.MemberRelay;
import dev.larder.server.internal.pubsub.PubSub;
import dev.larder.server.internal.pubsub.Tracking;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A clustered member's pub/sub and client-side caching across the cluster: PUBLISH reaches the
 * subscribers of every member, and a change on any member invalidates the keys that tracking
 * clients of every member read. Messages travel as {@link MemberMessage}s over larder-cluster's
 * member messages ({@link ClusteredCache#broadcast}).
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Who must be told of changes.</b> Telling every member of every write would add a message
 * per write per member, tracking or not; so each member says whether it has tracking clients
 * (TRACKING messages), and the others send invalidations only while some member may have any. A
 * member not heard from since it joined (or since a merge) counts as tracking. A member says it
 * tracks <i>synchronously</i>, before the first of its clients' CLIENT TRACKING ON is answered
 * ({@link #tracking}): every other member has recorded it before that client reads anything. A
 * member that applies a change checks whether others track after the change is applied ({@link
 * Tracking}'s callers do); if it found none, the announcement reached it after the change, so the
 * client's read, which follows the announcement, sees the change (synchronous replication) and
 * there is nothing to invalidate. A member says it has no tracking clients from the server's
 * scheduler ({@link #announce}, every second), and says its state again after every view, so that a
 * "none" sent before a partition cannot outlive a "tracking" sent during it. The announcements are
 * sent under one monitor, so the receivers see them in the order the member decided them (one
 * sender's messages arrive in its order).
 *
 * <p><b>Messages that may be lost.</b> Within a view, every member receives each other member's
 * messages once, in order. A member that crashes may die before it sends the invalidations of a
 * change already applied, and messages sent on one side of a partition never reach the other. So
 * when a member left this member's view, or partitions merge, this member's tracking clients are
 * told to drop everything they cached (a null invalidation, as Redis sends when it cannot keep
 * track).
 *
 * <p>Thread-safe. The receiving side runs on JGroups' delivery thread and only queues messages for
 * clients; {@link #tracking} may wait for other members, and runs on the event loop of the client
 * turning tracking on.
 */
public final class ClusterMessages implements MemberMessages, MemberRelay {

  private static final System.Logger LOG = System.getLogger(ClusterMessages.class.getName());

  private final ClusteredCache<byte[], byte[]> cache;
  private final String self;
  private final PubSub pubsub;
  private final Tracking tracking;

  /** What other members said of their tracking clients; a member not in it counts as tracking. */
  private final Map<String, Boolean> memberTracks = new ConcurrentHashMap<>();

  /** The other members of the current view (under {@code this}). */
  private List<String> others = List.of();

  private int views;
  private volatile boolean othersTrack = true;

  /** Orders the announcements of this member's tracking state. */
  private final Object announcing = new Object();

  private boolean announcedTracking;
  private int announcedAfterViews = -1;

  private ClusterMessages(ClusteredCache<byte[], byte[]> cache, PubSub pubsub, Tracking tracking) {
    this.cache = cache;
    this.self = cache.nodeName();
    this.pubsub = pubsub;
    this.tracking = tracking;
  }

  /**
   * Connects a member's pub/sub and tracking to the other members of its cluster. Call once, before
   * serving.
   *
   * @param cache the member's clustered cache
   * @param pubsub its channels and subscribers
   * @param tracking its tracking clients
   * @return the member's messages, for {@link #announce}
   */
  public static ClusterMessages attach(
      ClusteredCache<byte[], byte[]> cache, PubSub pubsub, Tracking tracking) {
    ClusterMessages m = new ClusterMessages(cache, pubsub, tracking);
    cache.onMessages(m);
    m.firstMembers(cache.members());
    pubsub.relay(m);
    tracking.relay(m);
    return m;
  }

  /** The members when attached, unless a view came first (it is newer). */
  private synchronized void firstMembers(List<String> members) {
    if (views == 0) {
      others = othersThan(members);
      recount();
    }
  }

  @Override
  public void published(byte[] channel, byte[] message) {
    cache.broadcast(new MemberMessage.Publish(channel, message).encode());
  }

  @Override
  public void changed(List<byte[]> keys) {
    if (othersTrack) {
      cache.broadcast(new MemberMessage.Invalidate(keys).encode());
    }
  }

  @Override
  public void flushed() {
    if (othersTrack) {
      cache.broadcast(new MemberMessage.Flush().encode());
    }
  }

  @Override
  public boolean othersTrack() {
    return othersTrack;
  }

  @Override
  public void tracking() {
    synchronized (announcing) {
      if (announcedTracking) {
        return;
      }
      cache.broadcastAndWait(new MemberMessage.TrackingState(true).encode());
      announcedTracking = true;
      announcedAfterViews = viewCount();
    }
  }

  /**
   * Tells the other members whether this member has tracking clients, if that changed since it last
   * said (only "none": "tracking" is said by {@link #tracking} before it is so) or a view came
   * since. Run periodically by the server's scheduler.
   */
  public void announce() {
    synchronized (announcing) {
      boolean active = tracking.clients() > 0;
      int v = viewCount();
      if (active == announcedTracking && v == announcedAfterViews) {
        return;
      }
      try {
        cache.broadcast(new MemberMessage.TrackingState(active).encode());
      } catch (RuntimeException e) {
        // the cache is closing: nobody to tell; a periodic task must not die of it
        LOG.log(System.Logger.Level.DEBUG, "could not announce tracking: " + e);
        return;
      }
      announcedTracking = active;
      announcedAfterViews = v;
    }
  }

  private synchronized int viewCount() {
    return views;
  }

  @Override
  public void received(String member, byte[] payload) {
    MemberMessage m;
    try {
      m = MemberMessage.decode(payload);
    } catch (IllegalArgumentException e) {
      LOG.log(System.Logger.Level.WARNING, "dropping a malformed message from " + member, e);
      return;
    }
    switch (m) {
      case MemberMessage.Publish p -> pubsub.deliver(p.channel(), p.message());
      case MemberMessage.Invalidate i -> tracking.changedOnAnotherMember(i.keys());
      case MemberMessage.Flush _ -> tracking.flushedOnAnotherMember();
      case MemberMessage.TrackingState t -> heard(member, t.active());
    }
  }

  private synchronized void heard(String member, boolean active) {
    memberTracks.put(member, active);
    recount();
  }

  @Override
  public void viewChanged(List<String> members, List<String> left, boolean merge) {
    synchronized (this) {
      views++;
      others = othersThan(members);
      if (merge) {
        memberTracks.clear();
      } else {
        memberTracks.keySet().retainAll(members);
        // a member back under its name has not said yet whether its new incarnation tracks
        memberTracks.keySet().removeAll(left);
      }
      recount();
    }
    if (!left.isEmpty() || merge) {
      tracking.flushedOnAnotherMember();
    }
  }

  private List<String> othersThan(List<String> members) {
    List<String> out = new ArrayList<>(members);
    out.remove(self);
    return out;
  }

  /** Under {@code this}: whether any other member may track. */
  private void recount() {
    boolean any = false;
    for (String m : others) {
      if (!Boolean.FALSE.equals(memberTracks.get(m))) {
        any = true;
        break;
      }
    }
    othersTrack = any;
  }
}
