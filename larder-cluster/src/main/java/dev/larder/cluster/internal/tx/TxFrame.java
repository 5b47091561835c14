package dev.larder.cluster.internal.tx;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.CodecException;
import dev.larder.tx.internal.KeyRef;
import java.util.ArrayList;
import java.util.List;

/**
 * The frames of the clustered transaction protocol, TX wire version 6 (docs/spec/cluster-wire.md,
 * "Transaction frames"), and the encodings that its log records share.
 *
 * <pre>
 * +---------+------+--------+----------------------------+
 * | version | type | reqId  | body (by type)             |
 * | u8 = 6  | u8   | i64    |                            |
 * +---------+------+--------+----------------------------+
 * txid   = incarnation i64, counter i64
 * ballot = round i64, member i64
 * bytes  = i32 length (-1 = absent), then the bytes
 * </pre>
 *
 * <p>Immutable records; {@link #decode} rejects an unknown version or type, a negative length or
 * count, a count larger than the bytes left could hold, and trailing bytes.
 */
sealed interface TxFrame {

  int VERSION = 6;

  int T_PREPARE = 1;
  int T_VOTE = 2;
  int T_DECIDE = 3;
  int T_ACK = 4;
  int T_APPLY = 5;
  int T_ABORT = 6;
  int T_QUERY = 7;
  int T_REPORT = 8;
  int T_ACCEPT = 9;
  int T_INSTALL = 10;
  int T_PULL = 11;
  int T_STATE = 12;
  int T_READ = 13;
  int T_VALUE = 14;
  int T_LEASE = 15;

  /** PREPARE flag: snapshot isolation (else serializable). */
  int F_SNAPSHOT = 1;

  /** PREPARE flag: a write outside a transaction, checked only for locks. */
  int F_BLIND = 2;

  /** LEASE flag: a grant (else a request). */
  int F_GRANT = 1;

  /** STATE flag: the last chunk. */
  int F_LAST = 1;

  /** STATE flag: the source is not at the pulled epoch (yet). */
  int F_REFUSED = 2;

  /** Returns the request this frame starts, or answers; 0 if none. */
  long reqId();

  /** Returns the type byte. */
  int type();

  /** Writes the body (after the header). */
  void body(ByteSink out);

  /** A write of a transaction: {@code value} null removes the key. */
  @SuppressWarnings("ArrayRecordComponent") // a wire frame, never compared; arrays not copied
  record Write(KeyRef key, byte[] value) {}

  /** A key in conflict: {@code committedAt} 0 means locked by another transaction. */
  record Conflict(KeyRef key, long committedAt) {}

  /**
   * One transaction as a member reports it to a reconfiguration: the highest-ballot decision it
   * accepted for it ({@link #D_NONE} if none), and the epoch the transaction was prepared in.
   */
  record PendingReport(TxId txid, int decision, Ballot ballot, long commitTs, long epoch) {}

  /** A member of an epoch: its id and its JGroups UUID address. */
  record Member(long id, long addressMost, long addressLeast) {}

  /**
   * A reconfiguration's decision on one transaction of epoch {@code epoch}: {@link #D_COMMIT},
   * {@link #D_ABORT} or {@link #D_UNKNOWN} (an earlier epoch's reconfiguration decided it, and no
   * member remembers how: its members left it to their holders' state and tell its originator
   * nothing but that it is in doubt).
   */
  record Decision(TxId txid, int kind, long commitTs, long epoch) {

    boolean commit() {
      return kind == D_COMMIT;
    }
  }

  /**
   * The decisions of the proposal a member installed last, which it remembers and reports to the
   * next reconfigurations: {@code base} is the highest epoch installed among the members that
   * proposal was made from, whose every transaction that may have been chosen it names.
   */
  record Remembered(long base, Ballot ballot, List<Decision> decisions) {

    /** Nothing remembered (no transaction is of epoch 0). */
    static final Remembered NONE = new Remembered(0, Ballot.ZERO, List.of());

    public Remembered {
      decisions = List.copyOf(decisions);
    }
  }

  /** A newest committed version, as state transfer sends it. */
  @SuppressWarnings("ArrayRecordComponent") // a wire frame, never compared; arrays not copied
  record VersionEntry(KeyRef key, long ts, byte[] value) {}

  /** Decisions in reports and proposals: none accepted, commit, abort, in doubt. */
  int D_NONE = 0;

  int D_COMMIT = 1;
  int D_ABORT = 2;
  int D_UNKNOWN = 3;

  /** Vote statuses. */
  int V_YES = 0;

  int V_NO = 1;
  int V_RETRY = 2;

  /** Ack and report statuses. */
  int A_OK = 0;

  int A_REFUSED = 1;

  /**
   * VALUE statuses: the value at the snapshot; not served here (ask another owner); conflict; a
   * commit of the key above the snapshot (its stored bytes: the owner's clock, {@link
   * #clockBytes}).
   */
  int R_OK = 0;

  int R_RETRY = 1;
  int R_CONFLICT = 2;
  int R_NEWER = 3;

  /** Returns {@code clock} as an {@link #R_NEWER} VALUE carries it: an i64 (8 bytes). */
  static byte[] clockBytes(long clock) {
    ByteSink out = new ByteSink();
    out.writeLong(clock);
    return out.toByteArray();
  }

  /** Reads the clock an {@link #R_NEWER} VALUE carries. */
  static long clockOf(byte[] stored) {
    if (stored == null || stored.length != Long.BYTES) {
      throw new IllegalArgumentException("a NEWER value carries an 8-byte clock");
    }
    return new ByteSource(stored).readLong();
  }

  /**
   * A reconfiguration's proposal: the next epoch, and how to get there. {@code held} is, per member
   * (in the order of {@code members}), the epoch at which it holds each segment whole (0: not
   * held), as it reported: from it every member learns which segments it keeps, adopts or drops
   * ({@link Holdings}). {@code base} is the highest epoch that a member it was made from had
   * installed.
   */
  record Proposal(
      Ballot ballot,
      long epoch,
      long base,
      long clock,
      List<Member> members,
      List<long[]> held,
      List<Decision> decisions) {
    public Proposal {
      members = List.copyOf(members);
      held = List.copyOf(held);
      decisions = List.copyOf(decisions);
    }
  }

  record Prepare(
      long reqId,
      long epoch,
      Ballot ballot,
      TxId txid,
      long snapshot,
      int flags,
      List<KeyRef> reads,
      List<Write> writes)
      implements TxFrame {
    @Override
    public int type() {
      return T_PREPARE;
    }

    @Override
    public void body(ByteSink out) {
      out.writeLong(epoch);
      writeBallot(out, ballot);
      writeTxId(out, txid);
      out.writeLong(snapshot);
      out.writeByte(flags);
      out.writeInt(reads.size());
      for (KeyRef k : reads) {
        writeKey(out, k);
      }
      writeWrites(out, writes);
    }
  }

  record Vote(long reqId, int status, long proposal, List<Conflict> conflicts) implements TxFrame {
    @Override
    public int type() {
      return T_VOTE;
    }

    @Override
    public void body(ByteSink out) {
      out.writeByte(status);
      out.writeLong(proposal);
      out.writeInt(conflicts.size());
      for (Conflict c : conflicts) {
        writeKey(out, c.key());
        out.writeLong(c.committedAt());
      }
    }
  }

  record Decide(long reqId, Ballot ballot, TxId txid, long commitTs) implements TxFrame {
    @Override
    public int type() {
      return T_DECIDE;
    }

    @Override
    public void body(ByteSink out) {
      writeBallot(out, ballot);
      writeTxId(out, txid);
      out.writeLong(commitTs);
    }
  }

  record Ack(long reqId, int status, Ballot promised) implements TxFrame {
    @Override
    public int type() {
      return T_ACK;
    }

    @Override
    public void body(ByteSink out) {
      out.writeByte(status);
      writeBallot(out, promised);
    }
  }

  record Apply(long reqId, TxId txid, long commitTs) implements TxFrame {
    @Override
    public int type() {
      return T_APPLY;
    }

    @Override
    public void body(ByteSink out) {
      writeTxId(out, txid);
      out.writeLong(commitTs);
    }
  }

  record Abort(long reqId, TxId txid) implements TxFrame {
    @Override
    public int type() {
      return T_ABORT;
    }

    @Override
    public void body(ByteSink out) {
      writeTxId(out, txid);
    }
  }

  /**
   * A read lease's request or grant (docs/design/cluster-transactions.md, "The read lease"): a
   * member READY in epoch {@code epoch} (of ballot {@code ballot}) asks each other member of it; a
   * member READY in that very epoch answers with the same stamp (the asker's monotonic time when it
   * asked, which the grantor does not interpret) and {@link #F_GRANT}.
   */
  record Lease(long reqId, long epoch, Ballot ballot, long stamp, int flags) implements TxFrame {
    @Override
    public int type() {
      return T_LEASE;
    }

    @Override
    public void body(ByteSink out) {
      out.writeLong(epoch);
      writeBallot(out, ballot);
      out.writeLong(stamp);
      out.writeByte(flags);
    }

    boolean grant() {
      return (flags & F_GRANT) != 0;
    }
  }

  record Query(long reqId, Ballot ballot, long viewId) implements TxFrame {
    @Override
    public int type() {
      return T_QUERY;
    }

    @Override
    public void body(ByteSink out) {
      writeBallot(out, ballot);
      out.writeLong(viewId);
    }
  }

  @SuppressWarnings("ArrayRecordComponent") // a wire frame, never compared; arrays not copied
  record Report(
      long reqId,
      int status,
      Ballot promised,
      long memberId,
      long epoch,
      long installed,
      long clock,
      long[] held,
      List<PendingReport> pending,
      Remembered remembered)
      implements TxFrame {
    @Override
    public int type() {
      return T_REPORT;
    }

    @Override
    public void body(ByteSink out) {
      out.writeByte(status);
      writeBallot(out, promised);
      out.writeLong(memberId);
      out.writeLong(epoch);
      out.writeLong(installed);
      out.writeLong(clock);
      writeLongs(out, held);
      out.writeInt(pending.size());
      for (PendingReport p : pending) {
        writeTxId(out, p.txid());
        out.writeByte(p.decision());
        writeBallot(out, p.ballot());
        out.writeLong(p.commitTs());
        out.writeLong(p.epoch());
      }
      out.writeLong(remembered.base());
      writeBallot(out, remembered.ballot());
      writeDecisions(out, remembered.decisions());
    }
  }

  record Accept(long reqId, Proposal proposal) implements TxFrame {
    @Override
    public int type() {
      return T_ACCEPT;
    }

    @Override
    public void body(ByteSink out) {
      writeProposal(out, proposal);
    }
  }

  record Install(long reqId, Proposal proposal) implements TxFrame {
    @Override
    public int type() {
      return T_INSTALL;
    }

    @Override
    public void body(ByteSink out) {
      writeProposal(out, proposal);
    }
  }

  /** Asks a holder for the newest versions of the keys of {@code segments}. */
  @SuppressWarnings("ArrayRecordComponent") // a wire frame, never compared; arrays not copied
  record Pull(long reqId, long epoch, int[] segments) implements TxFrame {
    @Override
    public int type() {
      return T_PULL;
    }

    @Override
    public void body(ByteSink out) {
      out.writeLong(epoch);
      out.writeInt(segments.length);
      for (int s : segments) {
        out.writeInt(s);
      }
    }
  }

  /** Asks an owner of the key, in {@code epoch}, for its value at {@code snapshot}. */
  record Read(long reqId, long epoch, long snapshot, KeyRef key) implements TxFrame {
    @Override
    public int type() {
      return T_READ;
    }

    @Override
    public void body(ByteSink out) {
      out.writeLong(epoch);
      out.writeLong(snapshot);
      writeKey(out, key);
    }
  }

  /** Answers a READ: a status and, for {@link #R_OK}, the stored bytes (null: absent). */
  @SuppressWarnings("ArrayRecordComponent") // a wire frame, never compared; arrays not copied
  record Value(long reqId, int status, byte[] stored) implements TxFrame {
    @Override
    public int type() {
      return T_VALUE;
    }

    @Override
    public void body(ByteSink out) {
      out.writeByte(status);
      writeBytes(out, stored);
    }
  }

  record State(long reqId, long epoch, int flags, List<VersionEntry> entries) implements TxFrame {
    @Override
    public int type() {
      return T_STATE;
    }

    @Override
    public void body(ByteSink out) {
      out.writeLong(epoch);
      out.writeByte(flags);
      out.writeInt(entries.size());
      for (VersionEntry e : entries) {
        writeVersion(out, e);
      }
    }
  }

  /** Returns the frame's bytes: header, then body. */
  static byte[] encode(TxFrame f) {
    ByteSink out = new ByteSink();
    out.writeByte(VERSION);
    out.writeByte(f.type());
    out.writeLong(f.reqId());
    f.body(out);
    return out.toByteArray();
  }

  /**
   * Returns the frame.
   *
   * @throws CodecException if the bytes are not a TX frame of this version
   */
  static TxFrame decode(byte[] bytes, int offset, int length) {
    ByteSource in = new ByteSource(bytes, offset, length);
    int version = in.readUnsignedByte();
    if (version != VERSION) {
      throw new CodecException("TX frame version " + version + ", expected " + VERSION);
    }
    int type = in.readUnsignedByte();
    long reqId = in.readLong();
    TxFrame f =
        switch (type) {
          case T_PREPARE ->
              new Prepare(
                  reqId,
                  in.readLong(),
                  readBallot(in),
                  readTxId(in),
                  in.readLong(),
                  in.readUnsignedByte(),
                  readKeys(in),
                  readWrites(in));
          case T_VOTE -> new Vote(reqId, in.readUnsignedByte(), in.readLong(), readConflicts(in));
          case T_DECIDE -> new Decide(reqId, readBallot(in), readTxId(in), in.readLong());
          case T_ACK -> new Ack(reqId, in.readUnsignedByte(), readBallot(in));
          case T_APPLY -> new Apply(reqId, readTxId(in), in.readLong());
          case T_ABORT -> new Abort(reqId, readTxId(in));
          case T_QUERY -> new Query(reqId, readBallot(in), in.readLong());
          case T_REPORT ->
              new Report(
                  reqId,
                  in.readUnsignedByte(),
                  readBallot(in),
                  in.readLong(),
                  in.readLong(),
                  in.readLong(),
                  in.readLong(),
                  readLongs(in),
                  readPending(in),
                  new Remembered(in.readLong(), readBallot(in), readDecisions(in)));
          case T_ACCEPT -> new Accept(reqId, readProposal(in));
          case T_INSTALL -> new Install(reqId, readProposal(in));
          case T_PULL -> new Pull(reqId, in.readLong(), readInts(in));
          case T_READ -> new Read(reqId, in.readLong(), in.readLong(), readKey(in));
          case T_VALUE -> new Value(reqId, in.readUnsignedByte(), readBytes(in));
          case T_STATE -> new State(reqId, in.readLong(), in.readUnsignedByte(), readVersions(in));
          case T_LEASE ->
              new Lease(reqId, in.readLong(), readBallot(in), in.readLong(), in.readUnsignedByte());
          default -> throw new CodecException("unknown TX frame type " + type);
        };
    if (!in.exhausted()) {
      throw new CodecException(in.remaining() + " trailing bytes after a TX frame of type " + type);
    }
    return f;
  }

  // ------------------------------------------------------------------ shared encodings

  static void writeBytes(ByteSink out, byte[] b) {
    if (b == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(b.length);
      out.writeBytes(b);
    }
  }

  static byte[] readBytes(ByteSource in) {
    int n = in.readInt();
    if (n == -1) {
      return null;
    }
    if (n < 0 || n > in.remaining()) {
      throw new CodecException(
          "byte string of length " + n + " with " + in.remaining() + " bytes left");
    }
    return in.readBytes(n);
  }

  /** Reads a count of items that each take at least {@code minBytes}, and checks it. */
  static int readCount(ByteSource in, int minBytes) {
    int n = in.readInt();
    if (n < 0 || (long) n * minBytes > in.remaining()) {
      throw new CodecException("count " + n + " with " + in.remaining() + " bytes left");
    }
    return n;
  }

  static void writeTxId(ByteSink out, TxId id) {
    out.writeLong(id.incarnation());
    out.writeLong(id.counter());
  }

  static TxId readTxId(ByteSource in) {
    return new TxId(in.readLong(), in.readLong());
  }

  static void writeBallot(ByteSink out, Ballot b) {
    out.writeLong(b.round());
    out.writeLong(b.member());
  }

  static Ballot readBallot(ByteSource in) {
    return new Ballot(in.readLong(), in.readLong());
  }

  static void writeKey(ByteSink out, KeyRef k) {
    out.writeInt(k.cache());
    writeBytes(out, k.key());
  }

  static KeyRef readKey(ByteSource in) {
    int cache = in.readInt();
    byte[] key = readBytes(in);
    if (cache < 0 || key == null) {
      throw new CodecException(
          "bad key: cache "
              + cache
              + ", "
              + (key == null ? "no key bytes" : key.length + " key bytes"));
    }
    return new KeyRef(cache, key);
  }

  private static List<KeyRef> readKeys(ByteSource in) {
    int n = readCount(in, 8);
    List<KeyRef> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(readKey(in));
    }
    return keys;
  }

  static void writeWrites(ByteSink out, List<Write> writes) {
    out.writeInt(writes.size());
    for (Write w : writes) {
      writeKey(out, w.key());
      writeBytes(out, w.value());
    }
  }

  static List<Write> readWrites(ByteSource in) {
    int n = readCount(in, 12);
    List<Write> writes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      writes.add(new Write(readKey(in), readBytes(in)));
    }
    return writes;
  }

  private static List<Conflict> readConflicts(ByteSource in) {
    int n = readCount(in, 16);
    List<Conflict> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(new Conflict(readKey(in), in.readLong()));
    }
    return list;
  }

  private static List<PendingReport> readPending(ByteSource in) {
    int n = readCount(in, 49);
    List<PendingReport> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      TxId id = readTxId(in);
      int decision = in.readUnsignedByte();
      if (decision > D_UNKNOWN) {
        throw new CodecException("decision " + decision);
      }
      list.add(new PendingReport(id, decision, readBallot(in), in.readLong(), in.readLong()));
    }
    return list;
  }

  static void writeMembers(ByteSink out, List<Member> members) {
    out.writeInt(members.size());
    for (Member m : members) {
      out.writeLong(m.id());
      out.writeLong(m.addressMost());
      out.writeLong(m.addressLeast());
    }
  }

  static List<Member> readMembers(ByteSource in) {
    int n = readCount(in, 24);
    List<Member> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(new Member(in.readLong(), in.readLong(), in.readLong()));
    }
    return list;
  }

  static void writeProposal(ByteSink out, Proposal p) {
    writeBallot(out, p.ballot());
    out.writeLong(p.epoch());
    out.writeLong(p.base());
    out.writeLong(p.clock());
    writeMembers(out, p.members());
    for (long[] h : p.held()) {
      writeLongs(out, h);
    }
    writeDecisions(out, p.decisions());
  }

  /** A count (i32), then each decision: txid, kind (u8), commit timestamp, epoch (i64). */
  static void writeDecisions(ByteSink out, List<Decision> decisions) {
    out.writeInt(decisions.size());
    for (Decision d : decisions) {
      writeTxId(out, d.txid());
      out.writeByte(d.kind());
      out.writeLong(d.commitTs());
      out.writeLong(d.epoch());
    }
  }

  static List<Decision> readDecisions(ByteSource in) {
    int n = readCount(in, 33);
    List<Decision> decisions = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      TxId id = readTxId(in);
      int kind = in.readUnsignedByte();
      if (kind != D_COMMIT && kind != D_ABORT && kind != D_UNKNOWN) {
        throw new CodecException("decision " + kind);
      }
      decisions.add(new Decision(id, kind, in.readLong(), in.readLong()));
    }
    return decisions;
  }

  static Proposal readProposal(ByteSource in) {
    Ballot ballot = readBallot(in);
    long epoch = in.readLong();
    long base = in.readLong();
    long clock = in.readLong();
    List<Member> members = readMembers(in);
    List<long[]> held = new ArrayList<>(members.size());
    for (int i = 0; i < members.size(); i++) {
      held.add(readLongs(in));
    }
    return new Proposal(ballot, epoch, base, clock, members, held, readDecisions(in));
  }

  /** A count (i32), then each value (i64). */
  static void writeLongs(ByteSink out, long[] values) {
    out.writeInt(values.length);
    for (long v : values) {
      out.writeLong(v);
    }
  }

  static long[] readLongs(ByteSource in) {
    int n = readCount(in, 8);
    long[] values = new long[n];
    for (int i = 0; i < n; i++) {
      values[i] = in.readLong();
    }
    return values;
  }

  private static int[] readInts(ByteSource in) {
    int n = readCount(in, 4);
    int[] values = new int[n];
    for (int i = 0; i < n; i++) {
      values[i] = in.readInt();
    }
    return values;
  }

  static void writeVersion(ByteSink out, VersionEntry e) {
    writeKey(out, e.key());
    out.writeLong(e.ts());
    writeBytes(out, e.value());
  }

  static VersionEntry readVersion(ByteSource in) {
    return new VersionEntry(readKey(in), in.readLong(), readBytes(in));
  }

  private static List<VersionEntry> readVersions(ByteSource in) {
    int n = readCount(in, 20);
    List<VersionEntry> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(readVersion(in));
    }
    return list;
  }
}
