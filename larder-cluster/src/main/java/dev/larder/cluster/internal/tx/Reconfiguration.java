package dev.larder.cluster.internal.tx;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.util.UUID;

/**
 * Establishes the next epoch for a view, as its coordinator: QUERY every member for promises and
 * reports (Paxos phase 1), ACCEPT a proposal (phase 2) until a majority of the configured members
 * logged it, then INSTALL (docs/design/cluster-transactions.md, "Reconfiguration"). Runs on one
 * thread at a time (the engine's reconfiguration executor); not thread-safe otherwise.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The proposal's decisions follow Paxos' rule per transaction of the newest epoch installed
 * among the reporters: the decision accepted under the highest ballot among the reports (a DECIDE
 * of the epoch's ballot counts as an accepted COMMIT), or ABORT if no member accepted any, since a
 * chosen DECIDE would have been logged by a majority, which intersects the members that answered. A
 * transaction of an older epoch was decided by a reconfiguration whose members have since forgotten
 * it but for the proposal they remember: it takes that ({@link #decisions}). The proposal carries
 * each member's held epochs per segment as reported; from them every member learns which segments
 * it keeps, adopts from a holder or drops ({@link Holdings}). The new epoch's number is above every
 * epoch a member reported having installed or accepted.
 */
final class Reconfiguration {

  private static final System.Logger LOG = System.getLogger(Reconfiguration.class.getName());

  private final MemberState member;
  private final TxChannel channel;
  private final int majority;
  private final long timeoutNanos;
  private final Adoption adoption;

  /**
   * How long this coordinator waits, once every member of its view promised, before it proposes,
   * when a member outside the view may still hold a read lease of the base epoch: the lease's
   * length with a tenth more for the drift between members' monotonic clocks.
   */
  private final long leaseFenceNanos;

  private long highestRound;
  private final java.util.concurrent.atomic.AtomicLong committedInDoubt =
      new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong abortedInDoubt =
      new java.util.concurrent.atomic.AtomicLong();

  /** Waits for read leases outside the view to run out ({@link #leaseFences}). */
  private final java.util.concurrent.atomic.AtomicLong leaseFences =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * @param leaseNanos how long a read lease grant counts (see {@link ReadLease})
   */
  Reconfiguration(
      MemberState member,
      TxChannel channel,
      int majority,
      long timeoutNanos,
      Adoption adoption,
      long leaseNanos) {
    this.member = member;
    this.leaseFenceNanos = leaseNanos + leaseNanos / 10;
    this.channel = channel;
    this.majority = majority;
    this.timeoutNanos = timeoutNanos;
    this.adoption = adoption;
  }

  /**
   * Returns true if an epoch was installed for this view; false if the view has no majority, is no
   * longer current, or a member did not answer (the caller retries later).
   */
  @SuppressWarnings("ReferenceEquality") // the view this run began with is still the channel's
  boolean run(View view) throws InterruptedException {
    if (view.size() < majority) {
      LOG.log(
          System.Logger.Level.INFO,
          "view "
              + view.getViewId()
              + " holds "
              + view.size()
              + " members, fewer than a majority ("
              + majority
              + "): no epoch");
      return false;
    }
    boolean fenced = false;
    for (int attempt = 0; attempt < 5; attempt++) {
      if (channel.view() != view) {
        return false; // a newer view: its own reconfiguration follows
      }
      highestRound = Math.max(highestRound, member.promised().round());
      Ballot ballot = new Ballot(++highestRound, member.memberId());
      Map<Address, TxFrame.Report> reports = query(view, ballot);
      if (reports == null) {
        LOG.log(
            System.Logger.Level.INFO,
            "reconfiguration for "
                + view.getViewId()
                + ": not"
                + " every member answered QUERY within the timeout; retried later");
        return false;
      }
      if (refused(
          reports.values().stream()
              .map(r -> r.status() == TxFrame.A_REFUSED ? r.promised() : null)
              .toList())) {
        continue;
      }
      String leaseHolder = fenced ? null : mayHoldLease(view, reports.values());
      if (leaseHolder != null) {
        // every member of the view has promised (it grants no lease of an older epoch again);
        // a member the view lacks may still hold one, granted just before: it runs out first
        long n = leaseFences.incrementAndGet();
        LOG.log(
            System.Logger.Level.INFO,
            "reconfiguration for "
                + view.getViewId()
                + ": waits "
                + TimeUnit.NANOSECONDS.toMillis(leaseFenceNanos)
                + " ms for read leases outside the view to run out ("
                + leaseHolder
                + "; lease fence "
                + n
                + " here)");
        TimeUnit.NANOSECONDS.sleep(leaseFenceNanos);
        fenced = true;
        if (channel.view() != view) {
          return false;
        }
      }
      TxFrame.Proposal proposal = propose(view, ballot, reports);
      Boolean accepted = accept(view, proposal);
      if (accepted == null) {
        continue;
      }
      if (!accepted) {
        LOG.log(
            System.Logger.Level.INFO,
            "reconfiguration for "
                + view.getViewId()
                + ": no"
                + " majority accepted within the timeout; retried later");
        return false;
      }
      install(view, proposal);
      long commits = proposal.decisions().stream().filter(TxFrame.Decision::commit).count();
      long aborts = proposal.decisions().stream().filter(d -> d.kind() == TxFrame.D_ABORT).count();
      committedInDoubt.addAndGet(commits);
      abortedInDoubt.addAndGet(aborts);
      LOG.log(
          System.Logger.Level.INFO,
          "installed epoch "
              + proposal.epoch()
              + " (ballot "
              + ballot
              + ") for view "
              + view.getViewId()
              + ": "
              + proposal.decisions().size()
              + " decisions");
      return true;
    }
    return false;
  }

  /**
   * Returns the in-doubt transactions that the epochs this member installed as coordinator decided:
   * {commits, aborts}.
   */
  long[] inDoubtResolved() {
    return new long[] {committedInDoubt.get(), abortedInDoubt.get()};
  }

  /** Returns how many times this coordinator waited for read leases to run out before proposing. */
  long leaseFences() {
    return leaseFences.get();
  }

  /**
   * Returns why a member outside {@code view} may hold a read lease in the epoch the next one
   * follows, or null if none may: the base epoch (the highest the reporters installed) has a member
   * the view lacks, or this member did not install the base epoch (it does not know its members),
   * or some reporter accepted a proposal of a higher epoch (which some member outside the view may
   * have installed). Leases need a majority of grants, and the view's members, a majority, all
   * promised: so none of an epoch below the base can be renewed either.
   */
  private String mayHoldLease(View view, java.util.Collection<TxFrame.Report> reports) {
    long base = 0;
    long highest = 0;
    for (TxFrame.Report r : reports) {
      base = Math.max(base, r.installed());
      highest = Math.max(highest, r.epoch());
    }
    if (base == 0 && highest == 0) {
      return null; // no epoch was ever installed or accepted: nobody holds a lease
    }
    Epoch own = member.epoch();
    if (highest > base) {
      return "a proposal of epoch " + highest + " above the installed " + base + " was accepted";
    }
    if (own.number != base) {
      return "this member did not install the base epoch " + base;
    }
    if (!view.getMembers().containsAll(own.addresses())) {
      List<Address> missing = new ArrayList<>(own.addresses());
      missing.removeAll(view.getMembers());
      return "members of epoch " + base + " outside the view: " + missing;
    }
    return null;
  }

  /** Returns true (and the round raised) if some member promised a higher ballot. */
  private boolean refused(List<Ballot> promises) {
    boolean any = false;
    for (Ballot b : promises) {
      if (b != null) {
        highestRound = Math.max(highestRound, b.round());
        any = true;
      }
    }
    return any;
  }

  private Map<Address, TxFrame.Report> query(View view, Ballot ballot) throws InterruptedException {
    List<Address> others = others(view);
    TxChannel.Call call = channel.open(others);
    try {
      for (Address a : others) {
        channel.send(a, new TxFrame.Query(call.id, ballot, view.getViewId().getId()), true);
      }
      TxFrame.Report own = member.query(new TxFrame.Query(0, ballot, view.getViewId().getId()));
      boolean done = call.await(c -> false, System.nanoTime() + timeoutNanos);
      if (!done || call.anyLeftOrMissing()) {
        return null;
      }
      Map<Address, TxFrame.Report> reports = new LinkedHashMap<>();
      reports.put(channel.self(), own);
      call.replies().forEach((a, f) -> reports.put(a, (TxFrame.Report) f));
      return reports;
    } finally {
      channel.close(call);
    }
  }

  private TxFrame.Proposal propose(View view, Ballot ballot, Map<Address, TxFrame.Report> reports) {
    long maxEpoch = 0;
    long base = 0;
    long clock = 0;
    for (TxFrame.Report r : reports.values()) {
      maxEpoch = Math.max(maxEpoch, r.epoch());
      base = Math.max(base, r.installed());
      clock = Math.max(clock, r.clock());
    }
    List<TxFrame.Member> members = new ArrayList<>();
    List<TxFrame.Report> ordered = new ArrayList<>();
    for (Address a : view.getMembers()) {
      TxFrame.Report r = reports.get(a);
      UUID u = (UUID) a;
      members.add(
          new TxFrame.Member(
              r.memberId(), u.getMostSignificantBits(), u.getLeastSignificantBits()));
      ordered.add(r);
    }
    return new TxFrame.Proposal(
        ballot, maxEpoch + 1, base, clock, members, held(ordered), decisions(reports.values()));
  }

  /**
   * The members' held epochs as reported, but for a tie: of the members reporting a segment's
   * highest held epoch, only those that installed the highest epoch keep it as holders (the others
   * report 0 for it, so they adopt or drop it). A member that installed an epoch the other did not
   * applied that epoch's decisions to the segments it held; the one that did not (cut off from that
   * reconfiguration) holds the same segment without them.
   */
  static List<long[]> held(List<TxFrame.Report> reports) {
    List<long[]> held = new ArrayList<>();
    for (TxFrame.Report r : reports) {
      held.add(r.held().clone());
    }
    if (held.isEmpty()) {
      return held;
    }
    int segments = held.get(0).length;
    for (int s = 0; s < segments; s++) {
      long newest = 0;
      for (long[] h : held) {
        newest = Math.max(newest, h[s]);
      }
      if (newest == 0) {
        continue;
      }
      long installed = 0;
      for (int i = 0; i < held.size(); i++) {
        if (held.get(i)[s] == newest) {
          installed = Math.max(installed, reports.get(i).installed());
        }
      }
      for (int i = 0; i < held.size(); i++) {
        if (held.get(i)[s] == newest && reports.get(i).installed() < installed) {
          held.get(i)[s] = 0;
        }
      }
    }
    return held;
  }

  /**
   * Per reported transaction, its decision (docs/design/cluster-transactions.md, "Decisions across
   * several reconfigurations"). A transaction of the highest epoch installed among the reporters
   * gets the highest-ballot decision reported for it, or ABORT if none: Paxos' rule, with every
   * reporter's memory of it whole (none has installed a later epoch). A transaction of an older
   * epoch (reported by a member cut off from the reconfigurations since) was decided by the first
   * reconfiguration after its epoch; its reporters' ballots may be older than that one's, so it
   * gets what a member remembers that reconfiguration (or a later one) chose: the named decision,
   * ABORT if that reconfiguration was made from the transaction's epoch and does not name it (it
   * names every transaction of that epoch that may have been chosen), else UNKNOWN (in doubt).
   */
  static List<TxFrame.Decision> decisions(Iterable<TxFrame.Report> reports) {
    long installed = 0;
    Map<TxId, TxFrame.Decision> remembered = new HashMap<>();
    Map<TxId, Ballot> rememberedBallot = new HashMap<>();
    Set<Long> covered = new HashSet<>();
    for (TxFrame.Report r : reports) {
      installed = Math.max(installed, r.installed());
      TxFrame.Remembered m = r.remembered();
      if (m.ballot().equals(Ballot.ZERO)) {
        continue;
      }
      covered.add(m.base());
      for (TxFrame.Decision d : m.decisions()) {
        Ballot b = rememberedBallot.get(d.txid());
        if (d.kind() != TxFrame.D_UNKNOWN && (b == null || m.ballot().isAbove(b))) {
          remembered.put(d.txid(), d);
          rememberedBallot.put(d.txid(), m.ballot());
        }
      }
    }
    Map<TxId, TxFrame.PendingReport> best = new HashMap<>();
    Map<TxId, Long> epochOf = new HashMap<>();
    for (TxFrame.Report r : reports) {
      for (TxFrame.PendingReport p : r.pending()) {
        epochOf.merge(p.txid(), p.epoch(), Math::min);
        TxFrame.PendingReport b = best.get(p.txid());
        if (b == null
            || (p.decision() != TxFrame.D_NONE
                && (b.decision() == TxFrame.D_NONE || p.ballot().isAbove(b.ballot())))) {
          best.put(p.txid(), p);
        }
      }
    }
    List<TxFrame.Decision> out = new ArrayList<>();
    for (TxFrame.PendingReport p : best.values()) {
      long e = epochOf.get(p.txid());
      if (e >= installed) {
        int kind = p.decision() == TxFrame.D_NONE ? TxFrame.D_ABORT : p.decision();
        out.add(
            new TxFrame.Decision(p.txid(), kind, kind == TxFrame.D_COMMIT ? p.commitTs() : 0, e));
      } else {
        TxFrame.Decision d = remembered.get(p.txid());
        if (d != null) {
          out.add(new TxFrame.Decision(p.txid(), d.kind(), d.commitTs(), e));
        } else {
          int kind = covered.contains(e) ? TxFrame.D_ABORT : TxFrame.D_UNKNOWN;
          out.add(new TxFrame.Decision(p.txid(), kind, 0, e));
        }
      }
    }
    return out;
  }

  /** Returns true if a majority accepted; false if not in time; null if refused (retry). */
  private Boolean accept(View view, TxFrame.Proposal proposal) throws InterruptedException {
    List<Address> others = others(view);
    TxChannel.Call call = channel.open(others);
    try {
      for (Address a : others) {
        channel.send(a, new TxFrame.Accept(call.id, proposal), true);
      }
      TxFrame.Ack own = member.accept(proposal);
      int mine = own.status() == TxFrame.A_OK ? 1 : 0;
      call.await(c -> mine + oks(c.replies()) >= majority, System.nanoTime() + timeoutNanos);
      Map<Address, TxFrame> replies = call.replies();
      if (mine + oks(replies) >= majority) {
        return true;
      }
      List<Ballot> refusals = new ArrayList<>();
      if (own.status() != TxFrame.A_OK) {
        refusals.add(own.promised());
      }
      for (TxFrame f : replies.values()) {
        TxFrame.Ack a = (TxFrame.Ack) f;
        if (a.status() != TxFrame.A_OK) {
          refusals.add(a.promised());
        }
      }
      return refused(refusals) ? null : Boolean.FALSE;
    } finally {
      channel.close(call);
    }
  }

  private void install(View view, TxFrame.Proposal proposal) {
    List<Address> before = member.epochAddresses();
    for (Address a : others(view)) {
      channel.send(a, new TxFrame.Install(0, proposal), true);
    }
    int[] adopt = member.install(proposal);
    if (adopt != null) {
      adoption.start(proposal, adopt);
    }
    // a member of the previous epoch that this view dropped may still hold the others in its own
    // view (a false suspicion on a loaded host: views disagree for a while) and so stay READY in
    // an epoch they have left, serving reads without their commits. A QUERY under this epoch's
    // ballot makes it promise that ballot and stop being READY, if it arrives; no answer is
    // awaited (request id 0). It only restricts what the member accepts, as any promise does.
    // Sent once, unreliably: the member may have died
    for (Address a : before) {
      if (!view.getMembers().contains(a) && !a.equals(channel.self())) {
        channel.sendOnce(a, new TxFrame.Query(0, proposal.ballot(), view.getViewId().getId()));
      }
    }
  }

  private static int oks(Map<Address, TxFrame> replies) {
    Set<Address> ok = new HashSet<>();
    replies.forEach(
        (a, f) -> {
          if (((TxFrame.Ack) f).status() == TxFrame.A_OK) {
            ok.add(a);
          }
        });
    return ok.size();
  }

  private List<Address> others(View view) {
    Address self = channel.self();
    List<Address> list = new ArrayList<>(view.getMembers());
    list.remove(self);
    return list;
  }
}
