package dev.larder.cluster.internal.tx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jgroups.Address;

/**
 * State transfer for the clustered store: a member that must adopt segments at an epoch it
 * installed pulls the newest versions of their keys from their holders ({@link Holdings}: in
 * REPLICATED mode a stale member adopts every segment, from one holder) and adopts them ({@link
 * MemberState#adopt}); a holder serves pulls for the epoch it installed. Chunks of about 256 KiB
 * travel as regular messages (FIFO from the holder), so the last one arrives last. Thread-safe.
 */
final class Adoption {

  private static final System.Logger LOG = System.getLogger(Adoption.class.getName());
  private static final int CHUNK_BYTES = 256 * 1024;

  private final MemberState member;
  private final TxChannel channel;
  private final long timeoutNanos;

  Adoption(MemberState member, TxChannel channel, long timeoutNanos) {
    this.member = member;
    this.channel = channel;
    this.timeoutNanos = timeoutNanos;
  }

  /** Starts pulling the segments' state for the proposal's epoch, in the background. */
  void start(TxFrame.Proposal p, int[] segments) {
    channel.execute(
        () -> {
          try {
            pull(p, segments);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
  }

  /**
   * Groups the segments by the holder to ask: among each segment's holders in the proposal, the one
   * that already serves the most segments, so that few members are asked.
   */
  static Map<Long, List<Integer>> plan(TxFrame.Proposal p, long self, int[] segments) {
    Holdings holdings = new Holdings(p.members(), p.held());
    Map<Long, List<Integer>> bySource = new LinkedHashMap<>();
    for (int s : segments) {
      long best = 0;
      int bestCount = -1;
      for (long h : holdings.holders(s)) {
        int count = bySource.getOrDefault(h, List.of()).size();
        if (h != self && count > bestCount) {
          best = h;
          bestCount = count;
        }
      }
      if (bestCount < 0) {
        throw new IllegalStateException("segment " + s + " has no holder to adopt it from");
      }
      bySource.computeIfAbsent(best, k -> new ArrayList<>()).add(s);
    }
    return bySource;
  }

  private void pull(TxFrame.Proposal p, int[] segments) throws InterruptedException {
    Map<Long, List<Integer>> plan = plan(p, member.memberId(), segments);
    long deadline = System.nanoTime() + 3 * timeoutNanos;
    while (System.nanoTime() < deadline
        && member.epoch().number == p.epoch()
        && !member.isReady()) {
      List<TxFrame.VersionEntry> entries = new ArrayList<>();
      boolean all = true;
      for (Map.Entry<Long, List<Integer>> src : plan.entrySet()) {
        Address source = addressIn(p, src.getKey());
        int[] wanted = src.getValue().stream().mapToInt(Integer::intValue).toArray();
        if (source == null || !pullFrom(source, p.epoch(), wanted, entries)) {
          all = false;
          break;
        }
      }
      if (all) {
        member.adopt(p.epoch(), segments, entries);
        return;
      }
      Thread.sleep(50); // a holder has not installed the epoch yet
    }
  }

  private static Address addressIn(TxFrame.Proposal p, long id) {
    for (TxFrame.Member m : p.members()) {
      if (m.id() == id) {
        return Epoch.address(m);
      }
    }
    return null;
  }

  /**
   * Returns true once every entry of the segments arrived from the holder (their newest versions
   * there, removals included); false if it refused (it is not at {@code epoch}, or does not hold
   * them) or did not answer within the timeout. Also what a walk of every member's keys asks each
   * primary ({@link ClusterTxEngine#forEachNewestInCluster}).
   */
  boolean pullFrom(Address source, long epoch, int[] wanted, List<TxFrame.VersionEntry> into)
      throws InterruptedException {
    List<TxFrame.VersionEntry> entries = new ArrayList<>();
    CompletableFuture<Boolean> done = new CompletableFuture<>();
    long id =
        channel.openStream(
            s -> {
              if ((s.flags() & TxFrame.F_REFUSED) != 0) {
                done.complete(false);
                return;
              }
              synchronized (entries) {
                entries.addAll(s.entries());
              }
              if ((s.flags() & TxFrame.F_LAST) != 0) {
                done.complete(true);
              }
            });
    try {
      channel.send(source, new TxFrame.Pull(id, epoch, wanted), true);
      if (done.get(timeoutNanos, TimeUnit.NANOSECONDS)) {
        synchronized (entries) {
          into.addAll(entries);
        }
        return true;
      }
      return false;
    } catch (TimeoutException e) {
      LOG.log(System.Logger.Level.INFO, "no state from " + source + " within the timeout");
      return false;
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    } finally {
      channel.closeStream(id);
    }
  }

  /** On a holder: sends the segments' newest versions, or a refusal if not at that epoch. */
  void serve(Address to, TxFrame.Pull pull) {
    List<TxFrame.VersionEntry> all = member.snapshotForTransfer(pull.epoch(), pull.segments());
    if (all == null) {
      channel.send(
          to,
          new TxFrame.State(
              pull.reqId(), pull.epoch(), TxFrame.F_LAST | TxFrame.F_REFUSED, List.of()),
          false);
      return;
    }
    List<TxFrame.VersionEntry> chunk = new ArrayList<>();
    long bytes = 0;
    for (TxFrame.VersionEntry e : all) {
      chunk.add(e);
      bytes += 24 + e.key().key().length + (e.value() == null ? 0 : e.value().length);
      if (bytes >= CHUNK_BYTES) {
        channel.send(to, new TxFrame.State(pull.reqId(), pull.epoch(), 0, chunk), false);
        chunk = new ArrayList<>();
        bytes = 0;
      }
    }
    channel.send(to, new TxFrame.State(pull.reqId(), pull.epoch(), TxFrame.F_LAST, chunk), false);
  }
}
