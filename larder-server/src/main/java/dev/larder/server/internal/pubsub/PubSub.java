package dev.larder.server.internal.pubsub;

import dev.larder.server.internal.keyspace.GlobPattern;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's channels and patterns and who subscribed to them: SUBSCRIBE, PSUBSCRIBE and their
 * opposites register here, PUBLISH delivers through here, PUBSUB reads it.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Order.</b> Redis runs one command at a time, so every subscriber of a channel sees that
 * channel's messages in one order, the order PUBLISH ran in. Here publishers run on several event
 * loops at once. A publish holds one of {@value #STRIPES} stripe monitors, chosen by the channel's
 * hash, while it hands the message to every exact and pattern subscriber ({@link
 * Subscriber#deliver} only queues, in a FIFO per connection); so two publishes to one channel hand
 * their messages over one after the other, and every subscriber's queue holds them in that order.
 * Publishes to different channels do not wait for each other (beyond a shared stripe).
 *
 * <p><b>Subscriptions</b> are concurrent sets: a subscribe or unsubscribe racing a publish may or
 * may not see that message. A message is never queued for a client before its subscription's
 * confirmation: the confirmation is a reply of the command that registered it, and queued messages
 * are written by a task that the connection's event loop runs after that command's replies. A
 * message queued just before an unsubscribe is dropped when it is written (the session checks that
 * the subscription still stands), so nothing arrives after the unsubscribe's confirmation.
 *
 * <p><b>Clusters.</b> PUBLISH also hands the message to the other members ({@link MemberRelay}),
 * under the same stripe monitor, so each member receives one member's messages to a channel in the
 * order that member delivered them; there they are delivered as local messages ({@link #deliver}).
 * Messages published on different members are not ordered with each other.
 *
 * <p>Thread-safe.
 */
public final class PubSub {
  static final int STRIPES = 256;

  private final Map<ByteBuffer, Set<Subscriber>> channels = new ConcurrentHashMap<>();
  private final Map<ByteBuffer, Pattern> patterns = new ConcurrentHashMap<>();
  private final Object[] stripes = new Object[STRIPES];
  private final LongAdder published = new LongAdder();
  private volatile MemberRelay relay = MemberRelay.NONE;

  /** Builds an empty registry. */
  public PubSub() {
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new Object();
    }
  }

  /**
   * Sets what tells the other members of a cluster of this member's PUBLISH commands. Called once,
   * before serving.
   *
   * @param relay the relay
   */
  public void relay(MemberRelay relay) {
    this.relay = relay;
  }

  /** A pattern and its subscribers. */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  private record Pattern(byte[] bytes, GlobPattern glob, Set<Subscriber> subscribers) {}

  /**
   * Subscribes a client to a channel.
   *
   * @param s the client
   * @param channel a channel it subscribes to
   */
  public void subscribe(Subscriber s, byte[] channel) {
    channels.compute(
        ByteBuffer.wrap(channel.clone()),
        (k, set) -> {
          Set<Subscriber> v = set == null ? ConcurrentHashMap.newKeySet() : set;
          v.add(s);
          return v;
        });
  }

  /**
   * Unsubscribes a client from a channel.
   *
   * @param s the client
   * @param channel a channel it leaves
   */
  public void unsubscribe(Subscriber s, byte[] channel) {
    channels.computeIfPresent(
        ByteBuffer.wrap(channel), (k, set) -> set.remove(s) && set.isEmpty() ? null : set);
  }

  /**
   * Subscribes a client to a pattern.
   *
   * @param s the client
   * @param pattern a glob pattern it subscribes to
   */
  public void psubscribe(Subscriber s, byte[] pattern) {
    byte[] p = pattern.clone();
    patterns.compute(
        ByteBuffer.wrap(p),
        (k, entry) -> {
          Pattern v =
              entry == null
                  ? new Pattern(p, new GlobPattern(p), ConcurrentHashMap.newKeySet())
                  : entry;
          v.subscribers().add(s);
          return v;
        });
  }

  /**
   * Unsubscribes a client from a pattern.
   *
   * @param s the client
   * @param pattern a pattern it leaves
   */
  public void punsubscribe(Subscriber s, byte[] pattern) {
    patterns.computeIfPresent(
        ByteBuffer.wrap(pattern),
        (k, entry) ->
            entry.subscribers().remove(s) && entry.subscribers().isEmpty() ? null : entry);
  }

  /**
   * PUBLISH: delivers a message to this member's subscribers, as {@link #deliver} does, and hands
   * it to the other members of a cluster (in the same order as here, per channel).
   *
   * @param channel the channel
   * @param payload the message
   * @return how many deliveries were made on this member (a client subscribed by channel and by a
   *     pattern counts twice, as in Redis; other members' subscribers are not counted, as in Redis
   *     Cluster)
   */
  public int publish(byte[] channel, byte[] payload) {
    return deliver(channel, payload, true);
  }

  /**
   * Delivers a message to every subscriber on this member of the channel and of every pattern
   * matching it, in one order per channel for all of them (see the class notes): keyspace
   * notifications, and messages other members' PUBLISH commands relayed here.
   *
   * @param channel the channel
   * @param payload the message
   * @return how many deliveries were made (a client subscribed by channel and by a pattern counts
   *     twice, as in Redis)
   */
  public int deliver(byte[] channel, byte[] payload) {
    return deliver(channel, payload, false);
  }

  private int deliver(byte[] channel, byte[] payload, boolean everyMember) {
    published.increment();
    int receivers = 0;
    synchronized (stripes[spread(ByteBuffer.wrap(channel).hashCode()) & (STRIPES - 1)]) {
      if (everyMember) {
        // under the stripe: the other members get one channel's messages in this member's order
        relay.published(channel, payload);
      }
      Set<Subscriber> exact = channels.get(ByteBuffer.wrap(channel));
      if (exact != null) {
        PushMessage m = new PushMessage.Message(channel, payload);
        for (Subscriber s : exact) {
          if (s.deliver(m)) {
            receivers++;
          }
        }
      }
      for (Pattern p : patterns.values()) {
        if (p.glob().matches(channel, false)) {
          PushMessage m = new PushMessage.PatternMessage(p.bytes(), channel, payload);
          for (Subscriber s : p.subscribers()) {
            if (s.deliver(m)) {
              receivers++;
            }
          }
        }
      }
    }
    return receivers;
  }

  /** Returns whether anyone subscribed to anything: a cheap test before building a message. */
  public boolean idle() {
    return channels.isEmpty() && patterns.isEmpty();
  }

  /**
   * Returns the channels with at least one subscriber, matching a pattern (PUBSUB CHANNELS).
   *
   * @param pattern a glob pattern, or null for all
   */
  public List<byte[]> channels(byte[] pattern) {
    GlobPattern glob = pattern == null ? null : new GlobPattern(pattern);
    List<byte[]> out = new ArrayList<>();
    for (ByteBuffer b : channels.keySet()) {
      byte[] name = bytes(b);
      if (glob == null || glob.matches(name, false)) {
        out.add(name);
      }
    }
    return out;
  }

  /**
   * Returns its number of subscribers (PUBSUB NUMSUB), patterns not counted.
   *
   * @param channel a channel
   */
  public int subscribers(byte[] channel) {
    Set<Subscriber> set = channels.get(ByteBuffer.wrap(channel));
    return set == null ? 0 : set.size();
  }

  /** Returns the number of patterns with at least one subscriber (PUBSUB NUMPAT). */
  public int patterns() {
    return patterns.size();
  }

  /** Returns the number of channels with at least one subscriber (INFO's pubsub_channels). */
  public int channelCount() {
    return channels.size();
  }

  /** Returns the messages published since the server started. */
  public long published() {
    return published.sum();
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  private static int spread(int h) {
    return h ^ (h >>> 16);
  }
}
