package dev.larder.cluster.internal.tx;

import dev.larder.cluster.ClusterException;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;

/**
 * The clustered store's JGroups channel: sends {@link TxFrame}s, matches replies to outstanding
 * calls, hands requests to a worker (a virtual thread each: handlers wait for the log) and views to
 * the engine. APPLY and ABORT, which wait for nothing, are handled on the delivery thread, so that
 * a member handles them before the sender's next regular frame. Thread-safe.
 */
final class TxChannel implements Receiver, AutoCloseable {

  private static final System.Logger LOG = System.getLogger(TxChannel.class.getName());

  /** What the engine does with requests and views. */
  interface Handler {
    void onRequest(Address from, TxFrame frame);

    void onView(View view);
  }

  private final JChannel channel;
  private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, Call> calls = new ConcurrentHashMap<>();
  private final Map<Long, Consumer<TxFrame.State>> streams = new ConcurrentHashMap<>();
  private volatile Handler handler;
  private volatile View view;
  private volatile boolean closed;

  /** One outstanding request to a set of members. */
  static final class Call {
    final long id;
    private final Set<Address> awaiting;
    private final Map<Address, TxFrame> replies = new HashMap<>();
    private final Set<Address> left = new HashSet<>();

    Call(long id, Collection<Address> to) {
      this.id = id;
      this.awaiting = new HashSet<>(to);
    }

    synchronized void reply(Address from, TxFrame f) {
      if (awaiting.remove(from)) {
        replies.put(from, f);
        notifyAll();
      }
    }

    synchronized void retain(Collection<Address> members) {
      for (var it = awaiting.iterator(); it.hasNext(); ) {
        Address a = it.next();
        if (!members.contains(a)) {
          it.remove();
          left.add(a);
        }
      }
      notifyAll();
    }

    /**
     * Waits until every awaited member answered or left, or {@code enough} holds, or the deadline
     * passes.
     *
     * @return true unless the deadline passed first
     */
    synchronized boolean await(Predicate<Call> enough, long deadlineNanos)
        throws InterruptedException {
      while (!awaiting.isEmpty() && !enough.test(this)) {
        long wait = deadlineNanos - System.nanoTime();
        if (wait <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, wait);
      }
      return true;
    }

    /**
     * Makes {@link #await} test its condition again (something it tests besides replies changed).
     */
    synchronized void wake() {
      notifyAll();
    }

    /** Returns true if none of {@code members} is still awaited (each answered or left). */
    synchronized boolean settled(Collection<Address> members) {
      for (Address a : members) {
        if (awaiting.contains(a)) {
          return false;
        }
      }
      return true;
    }

    synchronized Map<Address, TxFrame> replies() {
      return new HashMap<>(replies);
    }

    synchronized boolean anyLeftOrMissing() {
      return !left.isEmpty() || !awaiting.isEmpty();
    }
  }

  TxChannel(String stack, String nodeName) {
    try (InputStream in = openStack(stack)) {
      channel = new JChannel(in);
    } catch (Exception e) {
      throw new ClusterException("cannot build the JGroups stack " + stack + ": " + e, e);
    }
    if (nodeName != null) {
      channel.name(nodeName);
    }
  }

  JChannel jchannel() {
    return channel;
  }

  void connect(String cluster, Handler h) {
    this.handler = h;
    channel.setReceiver(this);
    try {
      channel.connect(cluster);
    } catch (Exception e) {
      close();
      if (e instanceof SecurityException) {
        throw new ClusterException(
            "cluster "
                + cluster
                + " refused this member: its"
                + " transactional settings differ from the running members' (the coordinator's log"
                + " names both)",
            e);
      }
      throw new ClusterException("cannot join cluster " + cluster + ": " + e, e);
    }
  }

  private static InputStream openStack(String stack) throws IOException {
    ClassLoader loader = TxChannel.class.getClassLoader();
    InputStream in = loader == null ? null : loader.getResourceAsStream(stack);
    if (in == null && Thread.currentThread().getContextClassLoader() != null) {
      in = Thread.currentThread().getContextClassLoader().getResourceAsStream(stack);
    }
    return in != null ? in : new FileInputStream(stack);
  }

  Address self() {
    return channel.getAddress();
  }

  View view() {
    return view;
  }

  Call open(Collection<Address> to) {
    Call c = new Call(ids.incrementAndGet(), to);
    calls.put(c.id, c);
    View v = view;
    if (v != null) {
      c.retain(v.getMembers());
    }
    return c;
  }

  void close(Call c) {
    calls.remove(c.id);
  }

  long openStream(Consumer<TxFrame.State> sink) {
    long id = ids.incrementAndGet();
    streams.put(id, sink);
    return id;
  }

  void closeStream(long id) {
    streams.remove(id);
  }

  void send(Address to, TxFrame f, boolean outOfBand) {
    Message msg = new BytesMessage(to, TxFrame.encode(f));
    if (outOfBand) {
      msg.setFlag(Message.Flag.OOB);
    }
    send(to, msg);
  }

  /**
   * Sends {@code f} out of band once, without retransmission: for a notice to a member that may
   * have died (a reliable send would be retransmitted to it until its connection expires).
   */
  void sendOnce(Address to, TxFrame f) {
    Message msg = new BytesMessage(to, TxFrame.encode(f));
    msg.setFlag(Message.Flag.OOB, Message.Flag.NO_RELIABILITY);
    send(to, msg);
  }

  private void send(Address to, Message msg) {
    try {
      channel.send(msg);
    } catch (Exception e) {
      if (!closed) {
        LOG.log(System.Logger.Level.DEBUG, "send to " + to + " failed: " + e);
      }
    }
  }

  @Override
  public void receive(Message msg) {
    if (closed) {
      return;
    }
    TxFrame f;
    try {
      f = TxFrame.decode(msg.getArray(), msg.getOffset(), msg.getLength());
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "dropping a malformed TX frame from " + msg.getSrc(), e);
      return;
    }
    Address from = msg.getSrc();
    switch (f) {
      case TxFrame.Vote v -> reply(from, v);
      case TxFrame.Ack a -> reply(from, a);
      case TxFrame.Report r -> reply(from, r);
      case TxFrame.Value v -> reply(from, v);
      case TxFrame.State s -> {
        Consumer<TxFrame.State> sink = streams.get(s.reqId());
        if (sink != null) {
          sink.accept(s);
        }
      }
      // on the delivery thread, in the sender's order: applied before its next PREPARE is seen
      case TxFrame.Apply a -> handle(from, a);
      case TxFrame.Abort a -> handle(from, a);
      default -> workers.execute(() -> handle(from, f));
    }
  }

  private void handle(Address from, TxFrame f) {
    try {
      handler.onRequest(from, f);
    } catch (RuntimeException e) {
      if (!closed) {
        LOG.log(
            System.Logger.Level.WARNING,
            "handling " + f.getClass().getSimpleName() + " from " + from + " failed",
            e);
      }
    }
  }

  private void reply(Address from, TxFrame f) {
    Call c = calls.get(f.reqId());
    if (c != null) {
      c.reply(from, f);
    }
  }

  @Override
  public void viewAccepted(View v) {
    view = v;
    for (Call c : calls.values()) {
      c.retain(v.getMembers());
    }
    Handler h = handler;
    if (h != null) {
      workers.execute(() -> h.onView(v));
    }
  }

  void execute(Runnable task) {
    workers.execute(task);
  }

  @Override
  public void close() {
    closed = true;
    channel.close();
    workers.shutdownNow();
  }
}
