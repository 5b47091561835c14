package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterException;
import dev.larder.codec.ValueDictionary;
import dev.larder.codec.ValueDictionary.Addition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.jgroups.Address;

/**
 * Keeps a member's {@link ValueDictionary} identical to the cluster's, so that an id written by any
 * member means the same value on every member. Thread-safe.
 *
 * <p>Implementation notes. The view's coordinator is the authority. Every addition passes through
 * this class's dictionary listener, which runs under the dictionary's lock before the new id is
 * used anywhere:
 *
 * <ul>
 *   <li>on the coordinator it is recorded and sent to every other member (a regular message, so
 *       per-sender FIFO delivers additions in id order);
 *   <li>on another member it is first proposed to the coordinator, which accepts it if the id is
 *       its next one for that space (and sends it to everyone), or if it already holds the same
 *       value at that id. If the coordinator holds another value there, the proposer is behind: the
 *       listener throws {@link Behind} carrying what it lacks, so the encoding fails, and the cache
 *       replays the additions and encodes again. If the proposer is ahead (a new coordinator that
 *       has not caught up), it pushes its additions to the coordinator first.
 *   <li>additions replayed from the coordinator run with {@link #replaying} set: recorded only.
 * </ul>
 *
 * A member that meets an id it does not know (bytes written elsewhere, whose addition is still on
 * its way) asks the coordinator for everything it lacks ({@link #catchUp}) and decodes again. After
 * each view, every member checks its content against a reference member's (a digest of each space's
 * common prefix): the coordinator's, or after a merge the winning side's first member's, since the
 * winning side's entries are the ones every member keeps. A member whose dictionary conflicts (two
 * sides of a partition added different values under the same ids) is marked diverged and refuses
 * every operation; after a merge, operations wait for the check.
 */
final class DictionarySync {

  private static final System.Logger LOG = System.getLogger(DictionarySync.class.getName());

  static final int OP_ADD = 0;
  static final int OP_PROPOSE = 1;
  static final int OP_PUSH = 2;
  static final int OP_SYNC = 3;

  /** Thrown by the listener when this member must replay additions before it can encode. */
  static final class Behind extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient List<Addition> missing;

    Behind(String message, List<Addition> missing) {
      super(message, null, false, false);
      this.missing = missing;
    }
  }

  private final Membership membership;
  private final Messenger messenger;

  /** Runs catch-ups and the requests of {@link #onDelivery} that may wait. */
  private final Executor workers;

  final ValueDictionary dictionary;

  /** Every addition, per space, in id order; changed only under the dictionary's lock. */
  private final Map<String, List<byte[]>> log = new HashMap<>();

  private final ThreadLocal<Boolean> replaying = ThreadLocal.withInitial(() -> false);
  private volatile String diverged;

  /** The member whose dictionary this one is checked against and catches up from. */
  private volatile Address reference;

  /** Set by a merge view until this member's content is checked against the reference. */
  private volatile boolean unverified;

  /** The spaces declared when the cache was built, in name order: the order of {@link #sizes}. */
  private final List<String> spaceOrder;

  /** This member's size of each space of {@link #spaceOrder}; replaced under {@code log}'s lock. */
  private volatile int[] sizes;

  DictionarySync(
      Membership membership, Messenger messenger, Executor workers, ValueDictionary dictionary) {
    if (dictionary.size() != 0) {
      throw new IllegalArgumentException(
          "a clustered cache's dictionary must be empty when the"
              + " cache is built (it holds "
              + dictionary.size()
              + " values); the cluster fills it");
    }
    this.membership = membership;
    this.messenger = messenger;
    this.workers = workers;
    this.dictionary = dictionary;
    this.spaceOrder = dictionary.spaces().stream().sorted().toList();
    this.sizes = new int[spaceOrder.size()];
    dictionary.addListener(this::onAddition);
  }

  // ---------------------------------------------------------------- the listener

  private void onAddition(Addition a) {
    if (diverged != null) {
      throw new ClusterException(diverged);
    }
    if (replaying.get()) {
      record(a);
      return;
    }
    Topology t = membership.topology();
    if (t == null) {
      throw new Behind("no view yet", List.of());
    }
    Address coord = t.view().getCoord();
    if (coord.equals(membership.self())) {
      record(a);
      messenger.multicast(frame(OP_ADD, 0, t.viewId(), List.of(a)));
      return;
    }
    Frame r = messenger.call(coord, frame(OP_PROPOSE, 0, t.viewId(), List.of(a)));
    if (r == null || r.op() == Frame.S_RETRY || r.op() == Frame.S_TIMEOUT) {
      throw new Behind("the coordinator did not confirm " + a, List.of());
    }
    if (r.op() == Frame.S_BEHIND) {
      // the coordinator lacks additions this member has: give them, then propose again
      int theirs = r.ints().length > 0 ? r.ints()[0] : 0;
      List<byte[]> mine = snapshotOf(a.space());
      List<Addition> push = new ArrayList<>();
      for (int id = theirs; id < mine.size(); id++) {
        push.add(new Addition(a.space(), id, mine.get(id)));
      }
      messenger.call(coord, frame(OP_PUSH, 0, t.viewId(), push));
      throw new Behind("the coordinator was behind", List.of());
    }
    if (r.op() == Frame.S_CONFLICT) {
      throw new Behind("another value took id " + a.id() + " of space " + a.space(), additions(r));
    }
    if (r.op() != Frame.S_OK) {
      throw new ClusterException(
          "the coordinator refused a dictionary addition: "
              + (r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8)));
    }
    record(a);
  }

  private void record(Addition a) {
    synchronized (log) {
      List<byte[]> space = log.computeIfAbsent(a.space(), s -> new ArrayList<>());
      if (a.id() == space.size()) {
        space.add(a.value());
        int i = spaceOrder.indexOf(a.space());
        if (i >= 0) {
          int[] next = sizes.clone();
          next[i] = space.size();
          sizes = next;
        }
      }
    }
  }

  // ---------------------------------------------------------------- writes' watermark

  /**
   * The ints of a write frame: {@code first}, then this member's size of each declared space (in
   * name order). A write's value may name any id below those sizes.
   */
  int[] withSizes(int first) {
    int[] mine = sizes;
    int[] out = new int[mine.length + 1];
    out[0] = first;
    System.arraycopy(mine, 0, out, 1, mine.length);
    return out;
  }

  /**
   * Whether this member knows every id that the sender of a write (whose sizes are {@code ints}
   * from index 1, see {@link #withSizes}) may have used. The coordinator multicasts an addition
   * while the writer sends its write, from different senders, so an owner can receive the write
   * first; one that applied and acknowledged it then, and was cut off by a partition from every
   * member that knows the id, could see its side give the id to another value. So a receiver that
   * is behind asks the reference member for what it lacks first; one that stays behind must not
   * apply the write (its sender retries). One call at most: on the delivery thread of a backup it
   * holds up that sender's later messages while it waits. A space a sender has and this member
   * lacks is not checked.
   *
   * @param ints the frame's ints
   * @return true if this member now holds at least the sender's size of every space
   */
  boolean knowsIdsOf(int[] ints) {
    if (covers(ints)) {
      return true;
    }
    catchUp();
    return covers(ints);
  }

  /**
   * This member's size of each declared space, as big-endian i32s in name order: the value of a
   * last STATE chunk. A source reads it after the last entry it sends, so every id those entries
   * name lies below these sizes (sizes only grow).
   */
  byte[] sizesAsBytes() {
    int[] mine = sizes;
    ByteBuffer out = ByteBuffer.allocate(Integer.BYTES * mine.length);
    for (int size : mine) {
      out.putInt(size);
    }
    return out.array();
  }

  /**
   * Whether this member knows every id the entries of a state transfer may name, given the source's
   * sizes ({@link #sizesAsBytes}); asks the reference member for what it lacks first if it is
   * behind, as {@link #knowsIdsOf(int[])} does.
   *
   * @param sourceSizes a last STATE chunk's value, whose length is a multiple of 4
   */
  boolean knowsIdsOf(byte[] sourceSizes) {
    ByteBuffer in = ByteBuffer.wrap(sourceSizes);
    int[] ints = new int[1 + sourceSizes.length / Integer.BYTES];
    for (int i = 1; i < ints.length; i++) {
      ints[i] = in.getInt();
    }
    return knowsIdsOf(ints);
  }

  /** Returns true if this member's dictionary no longer agrees with the cluster's. */
  boolean diverged() {
    return diverged != null;
  }

  private boolean covers(int[] ints) {
    int[] mine = sizes;
    for (int i = 1; i < ints.length && i - 1 < mine.length; i++) {
      if (mine[i - 1] < ints[i]) {
        return false;
      }
    }
    return true;
  }

  // ---------------------------------------------------------------- replay and catch-up

  /** Applies additions that came from the coordinator, in order; marks divergence. */
  void replay(List<Addition> additions) {
    replaying.set(true);
    try {
      for (Addition a : additions) {
        try {
          dictionary.apply(a);
        } catch (IllegalArgumentException e) {
          if (e.getMessage() != null && e.getMessage().contains("out of sequence")) {
            throw e;
          }
          diverge("cannot apply the cluster's dictionary addition " + a + ": " + e.getMessage());
          return;
        }
      }
    } finally {
      replaying.set(false);
    }
  }

  /**
   * Asks the coordinator for the additions this member lacks and applies them; also checks that the
   * common content agrees.
   *
   * @return true if the coordinator answered
   */
  @SuppressWarnings("ReferenceEquality") // the reference member is still the one asked
  boolean catchUp() {
    Topology t = membership.topology();
    Address ref = reference;
    if (t == null || ref == null) {
      return false;
    }
    if (ref.equals(membership.self())) {
      unverified = false;
      return false;
    }
    Frame r = messenger.call(ref, syncRequest(t.viewId()));
    if (r == null || r.op() != Frame.S_OK) {
      return false;
    }
    checkDigests(r);
    if (diverged == null) {
      replay(additions(r));
      if (reference == ref) {
        unverified = false;
      }
    }
    return true;
  }

  /**
   * Asks every other member in turn for the additions this member lacks: after a coordinator
   * crashed, an addition it multicast may have reached some members and not the new coordinator.
   * Every member's additions are a prefix of one sequence, and the digests guard against a member
   * that diverged.
   */
  void catchUpFromAnyone() {
    Topology t = membership.topology();
    if (t == null) {
      return;
    }
    for (Address a : t.view().getMembers()) {
      if (a.equals(membership.self()) || diverged != null) {
        continue;
      }
      Frame r = messenger.call(a, syncRequest(t.viewId()));
      if (r != null && r.op() == Frame.S_OK) {
        checkDigests(r);
        if (diverged == null) {
          replay(additions(r));
        }
      }
    }
  }

  /**
   * A view was installed: every member checks its content against the reference (the coordinator;
   * after a merge, the winning side's first member) and fetches what it lacks, in the background.
   * After a merge, operations wait for that check ({@link #check}).
   */
  void onView(Topology t, Address ref, boolean merge) {
    reference = ref;
    if (merge) {
      unverified = true;
    }
    if (!ref.equals(membership.self()) || merge) {
      workers.execute(
          () -> {
            try {
              catchUp();
            } catch (RuntimeException e) {
              LOG.log(System.Logger.Level.DEBUG, "dictionary catch-up after a view failed: " + e);
            }
          });
    }
  }

  /**
   * Called before every operation.
   *
   * @throws ClusterException if this member's dictionary diverged from the cluster's, or could not
   *     be checked after a merge within the cluster timeout
   */
  void check() {
    String d = diverged;
    if (d != null) {
      throw new ClusterException(d);
    }
    if (unverified) {
      long deadline = messenger.deadline();
      while (unverified && diverged == null) {
        if (!catchUp() && System.nanoTime() > deadline) {
          throw new ClusterException(
              membership.name()
                  + ": the value dictionary could not be"
                  + " checked against "
                  + reference
                  + " after a merge");
        }
        if (unverified) {
          try {
            Thread.sleep(10);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterException("interrupted", e);
          }
        }
      }
      if (diverged != null) {
        throw new ClusterException(diverged);
      }
    }
  }

  private synchronized void diverge(String why) {
    if (diverged != null) {
      return;
    }
    diverged =
        membership.name()
            + ": "
            + why
            + "; this member's value dictionary no longer agrees"
            + " with the cluster's (a partition gave two sides different values for the same ids),"
            + " so it refuses every operation: restart it with a new dictionary";
    LOG.log(System.Logger.Level.ERROR, diverged);
  }

  // ---------------------------------------------------------------- frames

  /**
   * A dictionary frame, on the delivery thread: additions are applied there, in the coordinator's
   * order; proposals, pushes and syncs may wait, and run on a worker.
   */
  void onDelivery(Address from, Frame f) {
    if (f.flags() == OP_ADD) {
      onFrame(from, f);
    } else {
      workers.execute(() -> onFrame(from, f));
    }
  }

  /** A dictionary frame, on the receiving side. */
  void onFrame(Address from, Frame f) {
    switch (f.flags()) {
      case OP_ADD -> {
        try {
          replay(additions(f));
        } catch (IllegalArgumentException e) {
          // a gap (this member joined after earlier additions): fetch everything it lacks
          workers.execute(this::catchUp);
        }
      }
      case OP_PROPOSE -> messenger.reply(from, f.reqId(), onPropose(f));
      case OP_PUSH -> {
        List<Addition> pushed = additions(f);
        int status = Frame.S_OK;
        for (Addition a : pushed) {
          try {
            dictionary.apply(a);
          } catch (IllegalArgumentException e) {
            status = Frame.S_CONFLICT;
            break;
          }
        }
        messenger.reply(from, f.reqId(), Frame.reply(f.reqId(), 0, status, null));
      }
      case OP_SYNC -> messenger.reply(from, f.reqId(), onSync(f));
      default -> LOG.log(System.Logger.Level.WARNING, "unknown dictionary op " + f.flags());
    }
  }

  /** On the coordinator: accept a proposed addition, or say what the proposer lacks. */
  private Frame onPropose(Frame f) {
    Topology t = membership.topology();
    if (!t.view().getCoord().equals(membership.self()) || diverged != null || unverified) {
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
    }
    Addition a = additions(f).get(0);
    int size = dictionary.size(a.space());
    if (a.id() > size) {
      return new Frame(
          Frame.T_REPLY,
          f.reqId(),
          t.viewId(),
          Frame.S_BEHIND,
          0,
          null,
          null,
          null,
          new int[] {size},
          List.of(),
          List.of());
    }
    try {
      // as the coordinator, the listener records it and sends it to everyone
      dictionary.apply(a);
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_OK, null);
    } catch (IllegalArgumentException e) {
      if (dictionary.size(a.space()) < a.id()) {
        return new Frame(
            Frame.T_REPLY,
            f.reqId(),
            t.viewId(),
            Frame.S_BEHIND,
            0,
            null,
            null,
            null,
            new int[] {dictionary.size(a.space())},
            List.of(),
            List.of());
      }
      List<Addition> lacking = new ArrayList<>();
      List<byte[]> space = snapshotOf(a.space());
      for (int id = a.id(); id < space.size(); id++) {
        lacking.add(new Addition(a.space(), id, space.get(id)));
      }
      return toFrame(Frame.T_REPLY, Frame.S_CONFLICT, f.reqId(), t.viewId(), lacking);
    }
  }

  private Frame syncRequest(long viewId) {
    List<String> spaces = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    for (String s : dictionary.spaces()) {
      spaces.add(s);
      sizes.add(dictionary.size(s));
    }
    return new Frame(
        Frame.T_DICT,
        0,
        viewId,
        0,
        OP_SYNC,
        null,
        null,
        null,
        sizes.stream().mapToInt(Integer::intValue).toArray(),
        spaces,
        List.of());
  }

  /**
   * Answers a sync request: the additions the requester lacks, and for each space it named the
   * digest of the prefix both hold.
   */
  private Frame onSync(Frame f) {
    Topology t = membership.topology();
    if (diverged != null) {
      return Frame.reply(f.reqId(), t.viewId(), Frame.S_RETRY, null);
    }
    Map<String, Integer> theirs = new HashMap<>();
    for (int i = 0; i < f.names().size(); i++) {
      theirs.put(f.names().get(i), f.ints()[i]);
    }
    List<Addition> lacking = new ArrayList<>();
    List<String> digestSpaces = new ArrayList<>();
    dev.larder.codec.ByteSink digests = new dev.larder.codec.ByteSink();
    for (String s : dictionary.spaces()) {
      List<byte[]> space = snapshotOf(s);
      int have = theirs.getOrDefault(s, 0);
      for (int id = have; id < space.size(); id++) {
        lacking.add(new Addition(s, id, space.get(id)));
      }
    }
    for (Map.Entry<String, Integer> e : theirs.entrySet()) {
      List<byte[]> space = snapshotOf(e.getKey());
      int common = Math.min(space.size(), e.getValue());
      digestSpaces.add(e.getKey());
      digests.writeLong(common);
      digests.writeLong(digest(space, common));
    }
    Frame r = toFrame(Frame.T_REPLY, Frame.S_OK, f.reqId(), t.viewId(), lacking);
    return new Frame(
        r.type(),
        r.reqId(),
        r.viewId(),
        r.op(),
        r.flags(),
        null,
        digests.toByteArray(),
        null,
        r.ints(),
        digestSpaces,
        r.entries());
  }

  private void checkDigests(Frame r) {
    if (r.value() == null) {
      return;
    }
    dev.larder.codec.ByteSource in = new dev.larder.codec.ByteSource(r.value());
    for (String s : r.names()) {
      int common = (int) in.readLong();
      long theirs = in.readLong();
      List<byte[]> mine = snapshotOf(s);
      if (mine.size() >= common && digest(mine, common) != theirs) {
        diverge(
            "space '"
                + s
                + "' differs from the reference member's in its first "
                + common
                + " values");
        return;
      }
    }
  }

  /** A copy of one space's log. */
  private List<byte[]> snapshotOf(String space) {
    synchronized (log) {
      List<byte[]> l = log.get(space);
      return l == null ? List.of() : new ArrayList<>(l);
    }
  }

  private static long digest(List<byte[]> values, int n) {
    long h = 0xCBF29CE484222325L;
    for (int i = 0; i < n; i++) {
      for (byte b : values.get(i)) {
        h = (h ^ (b & 0xFF)) * 0x100000001B3L;
      }
      h = (h ^ 0x100) * 0x100000001B3L;
    }
    return h;
  }

  private static Frame frame(int op, long reqId, long viewId, List<Addition> additions) {
    Frame f = toFrame(Frame.T_DICT, 0, reqId, viewId, additions);
    return new Frame(
        f.type(), f.reqId(), f.viewId(), 0, op, null, null, null, f.ints(), List.of(), f.entries());
  }

  private static Frame toFrame(
      int type, int status, long reqId, long viewId, List<Addition> additions) {
    int[] ids = new int[additions.size()];
    List<byte[]> entries = new ArrayList<>(additions.size() * 2);
    for (int i = 0; i < ids.length; i++) {
      Addition a = additions.get(i);
      ids[i] = a.id();
      entries.add(a.space().getBytes(StandardCharsets.UTF_8));
      entries.add(a.value());
    }
    return new Frame(type, reqId, viewId, status, 0, null, null, null, ids, List.of(), entries);
  }

  private static List<Addition> additions(Frame f) {
    List<Addition> out = new ArrayList<>(f.ints().length);
    for (int i = 0; i < f.ints().length && 2 * i + 1 < f.entries().size(); i++) {
      out.add(
          new Addition(
              new String(f.entries().get(2 * i), StandardCharsets.UTF_8),
              f.ints()[i],
              f.entries().get(2 * i + 1)));
    }
    return out;
  }
}
