package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterException;
import dev.larder.cluster.ClusterTimeoutException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.util.NameCache;

/**
 * Sends frames to other members and waits for their replies. Thread-safe.
 *
 * <p>Implementation notes. Regular messages are delivered in order per sender (JGroups'
 * NAKACK2/UNICAST3); out-of-band ones may overtake them and are delivered on other threads.
 * Requests whose handler may wait are sent out-of-band, so that a waiting request never holds up
 * the ordered stream that would answer it; writes to backups and state chunks are regular, so that
 * their order holds. A request opens a {@link Calls.Call} keyed by a fresh request id; replies
 * complete it, and members that leave the view are dropped from it by the view listener ({@link
 * Calls#retain}), so that no wait outlasts a member. Send failures are logged (at debug: JGroups
 * retransmits or the view changes) until this member closes, then ignored.
 *
 * <p>Backup writes that want no answer are queued per backup member ({@link Outbox}) and sent at
 * once, or, on a thread that {@linkplain #hold holds} them, when that thread {@linkplain #sendHeld
 * sends what it held}, several writes in one frame: one JGroups message, one delivery on the
 * backup, instead of one per write. Every regular frame to a member goes out behind what is queued
 * for it, so holding changes when writes leave, never the order of regular frames.
 */
final class Messenger {

  private static final System.Logger LOG = System.getLogger(Messenger.class.getName());

  private final ClusterConfig config;
  private final JChannel channel;
  private final Calls calls;
  private final Membership membership;
  private final Lifecycle lifecycle;

  /** Per member, the backup writes queued for it (members are added on first use). */
  private final Map<Address, Outbox> outboxes = new ConcurrentHashMap<>();

  /** Whether the thread queues its backup writes until {@link #sendHeld} instead of sending. */
  private final ThreadLocal<boolean[]> holding = ThreadLocal.withInitial(() -> new boolean[1]);

  Messenger(
      ClusterConfig config,
      JChannel channel,
      Calls calls,
      Membership membership,
      Lifecycle lifecycle) {
    this.config = config;
    this.channel = channel;
    this.calls = calls;
    this.membership = membership;
    this.lifecycle = lifecycle;
  }

  /** Returns the deadline of an operation starting now: the cluster timeout from now. */
  long deadline() {
    return System.nanoTime() + config.timeout().toNanos();
  }

  /**
   * Sends one frame to one member; out-of-band if asked. A regular frame goes out behind the backup
   * writes queued for that member. Never throws for a failed send.
   */
  void send(Address to, Frame f, boolean outOfBand) {
    Outbox box = outOfBand ? null : outboxes.get(to);
    if (box == null) {
      sendNow(to, f, outOfBand);
      return;
    }
    box.lock();
    try {
      box.drain(queued -> sendNow(to, queued, false));
      sendNow(to, f, false);
    } finally {
      box.unlock();
    }
  }

  /**
   * Sends a backup write that wants no answer (regular, reqId 0), in the order of the calls for
   * each member: at once, or, while this thread {@linkplain #hold holds} them, when it {@linkplain
   * #sendHeld sends what it held} or anything else is sent to that member. The caller holds the
   * key's segment lock, which orders the key's writes. Never throws for a failed send.
   *
   * @param viewId the view the primary applied the write in
   * @param ints the write's ints ({@link Backups#writeInts})
   * @param key the key
   * @param value the new stored value, or null for a removal
   */
  void sendBackup(Address to, long viewId, int[] ints, byte[] key, byte[] value) {
    Outbox box = outboxes.computeIfAbsent(to, a -> new Outbox());
    box.lock();
    try {
      box.add(viewId, ints, key, value, queued -> sendNow(to, queued, false));
      if (!holding.get()[0]) {
        box.drain(queued -> sendNow(to, queued, false));
      }
    } finally {
      box.unlock();
    }
  }

  /**
   * From now on this thread's backup writes that want no answer are queued until it calls {@link
   * #sendHeld} (or something else is sent to their member): the caller must call it soon.
   */
  void hold() {
    holding.get()[0] = true;
  }

  /**
   * Sends every queued backup write (this thread's and any other's), one frame per member and view,
   * and stops holding this thread's.
   */
  void sendHeld() {
    holding.get()[0] = false;
    for (Map.Entry<Address, Outbox> e : outboxes.entrySet()) {
      Outbox box = e.getValue();
      if (!box.isEmpty()) {
        Address to = e.getKey();
        box.lock();
        try {
          box.drain(queued -> sendNow(to, queued, false));
        } finally {
          box.unlock();
        }
      }
    }
  }

  /** Forgets the queues of members that left (what they held could not be delivered). */
  void retainOutboxes(Set<Address> members) {
    outboxes.keySet().retainAll(members);
  }

  private void sendNow(Address to, Frame f, boolean outOfBand) {
    Message msg = new BytesMessage(to, f.encode());
    if (outOfBand) {
      msg.setFlag(Message.Flag.OOB);
    }
    try {
      channel.send(msg);
    } catch (Exception e) {
      if (!lifecycle.closed()) {
        LOG.log(System.Logger.Level.DEBUG, "send to " + to + " failed: " + e);
      }
    }
  }

  /** Sends a frame to every other member (regular: FIFO per sender). */
  void multicast(Frame f) {
    Message msg = new BytesMessage(null, f.encode());
    msg.setFlag(Message.TransientFlag.DONT_LOOPBACK);
    try {
      channel.send(msg);
    } catch (Exception e) {
      if (!lifecycle.closed()) {
        LOG.log(System.Logger.Level.DEBUG, "multicast failed: " + e);
      }
    }
  }

  /** Answers a request; nothing is sent for a request that wants no answer (reqId 0). */
  void reply(Address to, long reqId, Frame reply) {
    if (reqId != 0) {
      send(
          to,
          new Frame(
              Frame.T_REPLY,
              reqId,
              reply.viewId(),
              reply.op(),
              reply.flags(),
              null,
              reply.value(),
              null,
              reply.ints(),
              reply.names(),
              reply.entries()),
          true);
    }
  }

  /**
   * Sends a request and waits for its reply until the cluster timeout.
   *
   * @return the reply; null if the member left; a synthetic S_TIMEOUT reply on timeout
   */
  Frame call(Address to, Frame request) {
    return call(to, request, deadline());
  }

  /**
   * Sends one request (out-of-band) and waits for its reply.
   *
   * @return the reply, or null if {@code to} left the view, or a synthetic S_TIMEOUT reply
   * @throws ClusterException if interrupted
   */
  Frame call(Address to, Frame request, long deadlineNanos) {
    Calls.Call call = calls.open(Set.of(to));
    try {
      send(to, withReqId(request, call.id), true);
      if (!call.await(deadlineNanos)) {
        return Frame.reply(0, 0, Frame.S_TIMEOUT, null).withNames(List.of(name(to)));
      }
      return call.replies().get(to);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted", e);
    } finally {
      calls.close(call);
    }
  }

  /**
   * Sends a frame to every other member of the current view, waiting for all replies if asked.
   *
   * @param what names the operation in a timeout's message
   * @return the replies by member (empty when not waiting)
   * @throws ClusterTimeoutException if a member neither answered nor left within the timeout
   */
  Map<Address, Frame> broadcast(Frame f, boolean wait, boolean outOfBand, String what) {
    Topology t = membership.topology();
    Set<Address> others = new HashSet<>(t.members());
    others.remove(membership.self());
    if (others.isEmpty()) {
      return Map.of();
    }
    if (!wait) {
      for (Address a : others) {
        send(a, f, outOfBand);
      }
      return Map.of();
    }
    Calls.Call call = calls.open(others);
    try {
      Frame withId = withReqId(f, call.id);
      for (Address a : others) {
        send(a, withId, outOfBand);
      }
      if (!call.await(deadline())) {
        throw new ClusterTimeoutException(what, names(call.awaiting().toArray(Address[]::new)));
      }
      return call.replies();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted during " + what, e);
    } finally {
      calls.close(call);
    }
  }

  /**
   * Opens a call awaiting replies from {@code members}; the caller sends the request with the
   * call's id, awaits it and closes it.
   */
  Calls.Call open(Set<Address> members) {
    return calls.open(members);
  }

  void close(Calls.Call call) {
    calls.close(call);
  }

  /** A reply arrived (on the delivery thread): completes its call, if still open. */
  void onReply(Address from, Frame f) {
    calls.reply(from, f);
  }

  static Frame withReqId(Frame f, long reqId) {
    return new Frame(
        f.type(),
        reqId,
        f.viewId(),
        f.op(),
        f.flags(),
        f.key(),
        f.value(),
        f.expected(),
        f.ints(),
        f.names(),
        f.entries());
  }

  static List<String> names(Address[] members) {
    return Arrays.stream(members).map(Messenger::name).toList();
  }

  /**
   * Returns a member's logical name (its nodeName, or the one JGroups picked); an address that
   * carries attributes would print them too, so it is never printed directly.
   */
  static String name(Address member) {
    String name = NameCache.get(member);
    return name != null ? name : member.toString();
  }
}
