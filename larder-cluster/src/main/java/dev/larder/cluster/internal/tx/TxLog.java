package dev.larder.cluster.internal.tx;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.CodecException;
import dev.larder.wal.Checkpoint;
import dev.larder.wal.LogReplay;
import dev.larder.wal.WalConfig;
import dev.larder.wal.WriteAheadLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A member's log: the records and checkpoint entries of docs/spec/cluster-wire.md ("Transaction log
 * records", format version 3) over a larder-wal {@link WriteAheadLog}.
 *
 * <p>Records take increasing sequences in the order they are appended (under one lock, held only to
 * append); waiting for a record ({@link #sync}) happens outside it, so concurrent waiters share the
 * log's group commit. A checkpoint is written under the same lock, by a caller that also holds the
 * member's state still (see {@code MemberState.checkpoint}).
 *
 * <p>Thread-safe.
 */
final class TxLog implements AutoCloseable {

  static final int PREPARED = 20;
  static final int DECIDED = 21;
  static final int APPLIED = 22;
  static final int ABORTED = 23;
  static final int PROMISE = 24;
  static final int ACCEPTED = 25;
  static final int EPOCH = 26;
  static final int MEMBER = 27;

  static final int E_META = 1;
  static final int E_VERSION = 2;
  static final int E_PENDING = 3;
  static final int E_ACCEPTED = 4;
  static final int E_APPLIED = 5;
  static final int E_REMEMBERED = 6;

  private static final String FORMAT_FILE = "cluster-tx";
  private static final String FORMAT = "version 3";

  private final WriteAheadLog wal;
  private final ReentrantLock lock = new ReentrantLock();
  private long sequence;

  /** Receives what recovery finds, in log order. */
  interface Replay {
    void member(long id);

    void meta(
        long memberId,
        Ballot promised,
        long epoch,
        Ballot epochBallot,
        long clock,
        List<TxFrame.Member> members,
        long[] held);

    void version(TxFrame.VersionEntry entry);

    void prepared(TxId txid, long proposal, List<TxFrame.Write> writes);

    void decided(TxId txid, Ballot ballot, long commitTs);

    void applied(TxId txid, long commitTs);

    void aborted(TxId txid);

    void promise(Ballot ballot);

    void accepted(TxFrame.Proposal proposal);

    /**
     * An installed epoch, with the decisions of the proposal that established it (what the member
     * remembers of it).
     */
    void epoch(
        long number,
        Ballot ballot,
        List<TxFrame.Member> members,
        long[] held,
        TxFrame.Remembered remembered);

    /** The decisions a member remembered when it wrote its checkpoint. */
    void remembered(TxFrame.Remembered remembered);
  }

  private TxLog(WriteAheadLog wal) {
    this.wal = wal;
    this.sequence = wal.recovery().lastSequence();
  }

  /**
   * Opens (recovers) the log in {@code config}'s directory, then checks (or, for a new directory,
   * writes) the format file.
   *
   * @throws IllegalStateException if the directory holds another format
   */
  static TxLog open(WalConfig config, Replay replay) {
    WriteAheadLog wal;
    try {
      wal = WriteAheadLog.open(config, replayOf(replay));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      checkFormat(config);
    } catch (IOException | RuntimeException e) {
      wal.close();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
    return new TxLog(wal);
  }

  private static void checkFormat(WalConfig config) throws IOException {
    var files = config.files();
    java.nio.file.Path dir = config.directory();
    java.nio.file.Path file = dir.resolve(FORMAT_FILE);
    if (files.list(dir).contains(FORMAT_FILE)) {
      byte[] bytes;
      try (var f = files.open(file)) {
        bytes = new byte[(int) f.size()];
        f.read(0, bytes, 0, bytes.length);
      }
      String found = new String(bytes, StandardCharsets.UTF_8).trim();
      if (!found.equals(FORMAT)) {
        throw new IllegalStateException(
            dir
                + " holds a clustered transaction log of format '"
                + found
                + "'; this member reads '"
                + FORMAT
                + "'");
      }
    } else {
      files.writeAtomically(file, FORMAT.getBytes(StandardCharsets.UTF_8));
    }
  }

  WriteAheadLog wal() {
    return wal;
  }

  /** Returns a ticket for {@link #sync}. */
  long append(int type, Consumer<ByteSink> payload) {
    ByteSink out = new ByteSink();
    payload.accept(out);
    byte[] bytes = out.toByteArray();
    lock.lock();
    try {
      return wal.append(++sequence, type, bytes);
    } finally {
      lock.unlock();
    }
  }

  /** Waits until the record may be acknowledged, under the fsync policy. */
  void sync(long ticket) {
    wal.sync(ticket);
  }

  /** Appends and waits. */
  void appendAndSync(int type, Consumer<ByteSink> payload) {
    sync(append(type, payload));
  }

  /**
   * Writes a checkpoint of what {@code entries} adds (each entry one byte array); the caller holds
   * the member's state still, so that nothing is appended meanwhile.
   */
  void checkpoint(Consumer<Consumer<byte[]>> entries) {
    lock.lock();
    try {
      try (Checkpoint ck = wal.beginCheckpoint(sequence)) {
        entries.accept(ck::add);
        ck.complete();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    wal.close();
  }

  // ------------------------------------------------------------------ encodings

  static void writePrepared(ByteSink out, TxId txid, long proposal, List<TxFrame.Write> writes) {
    TxFrame.writeTxId(out, txid);
    out.writeLong(proposal);
    TxFrame.writeWrites(out, writes);
  }

  static void writeEpoch(
      ByteSink out,
      long number,
      Ballot ballot,
      List<TxFrame.Member> members,
      long[] held,
      TxFrame.Remembered remembered) {
    out.writeLong(number);
    TxFrame.writeBallot(out, ballot);
    TxFrame.writeMembers(out, members);
    TxFrame.writeLongs(out, held);
    writeRemembered(out, remembered);
  }

  /** The base epoch (i64), the ballot, then the decisions. */
  static void writeRemembered(ByteSink out, TxFrame.Remembered r) {
    out.writeLong(r.base());
    TxFrame.writeBallot(out, r.ballot());
    TxFrame.writeDecisions(out, r.decisions());
  }

  static TxFrame.Remembered readRemembered(ByteSource in) {
    return new TxFrame.Remembered(in.readLong(), TxFrame.readBallot(in), TxFrame.readDecisions(in));
  }

  static byte[] entry(int kind, Consumer<ByteSink> body) {
    ByteSink out = new ByteSink();
    out.writeByte(kind);
    body.accept(out);
    return out.toByteArray();
  }

  private static LogReplay replayOf(Replay r) {
    return new LogReplay() {
      @Override
      public void checkpointEntry(long checkpointSequence, byte[] entry) {
        ByteSource in = new ByteSource(entry);
        int kind = in.readUnsignedByte();
        switch (kind) {
          case E_META ->
              r.meta(
                  in.readLong(),
                  TxFrame.readBallot(in),
                  in.readLong(),
                  TxFrame.readBallot(in),
                  in.readLong(),
                  TxFrame.readMembers(in),
                  TxFrame.readLongs(in));
          case E_VERSION -> r.version(TxFrame.readVersion(in));
          case E_PENDING -> {
            TxId id = TxFrame.readTxId(in);
            long proposal = in.readLong();
            r.prepared(id, proposal, TxFrame.readWrites(in));
            int decided = in.readUnsignedByte();
            Ballot b = TxFrame.readBallot(in);
            long ts = in.readLong();
            if (decided == TxFrame.D_COMMIT) {
              r.decided(id, b, ts);
            }
          }
          case E_ACCEPTED -> r.accepted(TxFrame.readProposal(in));
          case E_APPLIED -> r.applied(TxFrame.readTxId(in), in.readLong());
          case E_REMEMBERED -> r.remembered(readRemembered(in));
          default -> throw new CodecException("unknown checkpoint entry kind " + kind);
        }
        done(in);
      }

      @Override
      public void record(long sequence, int type, byte[] payload) {
        ByteSource in = new ByteSource(payload);
        switch (type) {
          case PREPARED -> r.prepared(TxFrame.readTxId(in), in.readLong(), TxFrame.readWrites(in));
          case DECIDED -> r.decided(TxFrame.readTxId(in), TxFrame.readBallot(in), in.readLong());
          case APPLIED -> r.applied(TxFrame.readTxId(in), in.readLong());
          case ABORTED -> r.aborted(TxFrame.readTxId(in));
          case PROMISE -> r.promise(TxFrame.readBallot(in));
          case ACCEPTED -> r.accepted(TxFrame.readProposal(in));
          case EPOCH ->
              r.epoch(
                  in.readLong(),
                  TxFrame.readBallot(in),
                  TxFrame.readMembers(in),
                  TxFrame.readLongs(in),
                  readRemembered(in));
          case MEMBER -> r.member(in.readLong());
          default -> throw new CodecException("unknown clustered transaction record type " + type);
        }
        done(in);
      }
    };
  }

  private static void done(ByteSource in) {
    if (!in.exhausted()) {
      throw new CodecException(in.remaining() + " trailing bytes in a log record");
    }
  }
}
