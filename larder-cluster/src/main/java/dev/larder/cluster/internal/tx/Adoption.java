package dev.larder.cluster.internal.tx;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jgroups.Address;

/**
 * State transfer for the clustered store: a stale member pulls every newest version from the
 * epoch's source and adopts it whole ({@link MemberState#adopt}); the source serves pulls for the
 * epoch it installed. Chunks of about 256 KiB travel as regular messages (FIFO from the source), so
 * the last one arrives last. Thread-safe.
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

  /** Starts pulling the source's state for the proposal's epoch, in the background. */
  void start(TxFrame.Proposal p) {
    channel.execute(
        () -> {
          try {
            pull(p);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
  }

  private void pull(TxFrame.Proposal p) throws InterruptedException {
    Address source = null;
    for (TxFrame.Member m : p.members()) {
      if (m.id() == p.source()) {
        source = Epoch.address(m);
      }
    }
    long deadline = System.nanoTime() + 3 * timeoutNanos;
    while (source != null
        && System.nanoTime() < deadline
        && member.epoch().number == p.epoch()
        && !member.isReady()) {
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
        channel.send(source, new TxFrame.Pull(id, p.epoch()), true);
        if (done.get(timeoutNanos, TimeUnit.NANOSECONDS)) {
          synchronized (entries) {
            member.adopt(p.epoch(), entries);
          }
          return;
        }
      } catch (TimeoutException e) {
        LOG.log(System.Logger.Level.INFO, "no state from " + source + " within the timeout");
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException(e.getCause());
      } finally {
        channel.closeStream(id);
      }
      Thread.sleep(50); // the source has not installed the epoch yet
    }
  }

  /** On the source: sends every newest version, or a refusal if not at that epoch. */
  void serve(Address to, TxFrame.Pull pull) {
    List<TxFrame.VersionEntry> all = member.snapshotForTransfer(pull.epoch());
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
