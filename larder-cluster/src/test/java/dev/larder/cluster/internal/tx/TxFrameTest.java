package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.codec.CodecException;
import dev.larder.tx.internal.KeyRef;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Every TX frame survives encoding; damaged and random bytes are refused, never misread. */
class TxFrameTest {

  private static final TxId ID = new TxId(0x1234_5678_9ABCL, 42);
  private static final Ballot BALLOT = new Ballot(7, 0xBEEFL);
  private static final KeyRef KEY = new KeyRef(1, new byte[] {1, 2, 3});

  static List<TxFrame> samples() {
    TxFrame.Proposal p =
        new TxFrame.Proposal(
            BALLOT,
            5,
            4,
            99,
            List.of(new TxFrame.Member(3, 10, 11), new TxFrame.Member(4, 12, 13)),
            List.of(new long[] {4, 4, 0}, new long[] {3, 4, 4}),
            List.of(
                new TxFrame.Decision(ID, TxFrame.D_COMMIT, 77, 4),
                new TxFrame.Decision(new TxId(1, 2), TxFrame.D_ABORT, 0, 4),
                new TxFrame.Decision(new TxId(1, 3), TxFrame.D_UNKNOWN, 0, 3)));
    return List.of(
        new TxFrame.Prepare(
            9,
            5,
            BALLOT,
            ID,
            1000,
            TxFrame.F_SNAPSHOT,
            List.of(KEY),
            List.of(
                new TxFrame.Write(KEY, new byte[] {9}),
                new TxFrame.Write(new KeyRef(0, new byte[] {4}), null))),
        new TxFrame.Vote(9, TxFrame.V_NO, 0, List.of(new TxFrame.Conflict(KEY, 123))),
        new TxFrame.Decide(10, BALLOT, ID, 2000),
        new TxFrame.Ack(10, TxFrame.A_REFUSED, BALLOT),
        new TxFrame.Apply(0, ID, 2000),
        new TxFrame.Abort(0, ID),
        new TxFrame.Query(11, BALLOT, 17),
        new TxFrame.Lease(0, 5, BALLOT, -3, 0),
        new TxFrame.Lease(0, 5, BALLOT, 0x0102030405060708L, TxFrame.F_GRANT),
        new TxFrame.Report(
            11,
            TxFrame.A_OK,
            BALLOT,
            3,
            5,
            4,
            99,
            new long[] {5, 0, 5},
            List.of(new TxFrame.PendingReport(ID, TxFrame.D_COMMIT, BALLOT, 2000, 4)),
            new TxFrame.Remembered(
                3, BALLOT, List.of(new TxFrame.Decision(ID, TxFrame.D_ABORT, 0, 3)))),
        new TxFrame.Accept(12, p),
        new TxFrame.Install(0, p),
        new TxFrame.Pull(13, 5, new int[] {0, 2}),
        new TxFrame.Read(14, 5, 1000, KEY),
        new TxFrame.Value(14, TxFrame.R_OK, new byte[] {1, 7}),
        new TxFrame.Value(15, TxFrame.R_RETRY, null),
        new TxFrame.Value(16, TxFrame.R_NEWER, TxFrame.clockBytes(0x0102030405060708L)),
        new TxFrame.State(
            13,
            5,
            TxFrame.F_LAST,
            List.of(
                new TxFrame.VersionEntry(KEY, 2000, new byte[] {5, 6}),
                new TxFrame.VersionEntry(KEY, 2001, null))));
  }

  @Test
  void everyFrameDecodesToWhatWasEncoded() {
    for (TxFrame f : samples()) {
      byte[] bytes = TxFrame.encode(f);
      TxFrame back = TxFrame.decode(bytes, 0, bytes.length);
      assertEquals(f.getClass(), back.getClass());
      assertArrayEquals(bytes, TxFrame.encode(back), f.getClass().getSimpleName());
    }
  }

  /** VALUE NEWER byte for byte: version, type, reqId, status, the clock as an 8-byte string. */
  @Test
  void aNewerValueCarriesTheOwnersClock() {
    byte[] expected = {
      6,
      14,
      16,
      0,
      0,
      0,
      0,
      0,
      0,
      0, // version 6, VALUE, reqId 16
      3, // NEWER
      8,
      0,
      0,
      0,
      8,
      7,
      6,
      5,
      4,
      3,
      2,
      1 // 8 bytes: the clock, little-endian
    };
    TxFrame.Value v =
        new TxFrame.Value(16, TxFrame.R_NEWER, TxFrame.clockBytes(0x0102030405060708L));
    assertArrayEquals(expected, TxFrame.encode(v));
    TxFrame.Value back = (TxFrame.Value) TxFrame.decode(expected, 0, expected.length);
    assertEquals(0x0102030405060708L, TxFrame.clockOf(back.stored()));
    assertThrows(IllegalArgumentException.class, () -> TxFrame.clockOf(new byte[] {1, 2}));
  }

  /**
   * LEASE byte for byte: version, type, reqId, epoch, ballot (round, member), the asker's stamp
   * echoed, flags (1 = grant).
   */
  @Test
  void aLeaseGrantEchoesTheAskersStamp() {
    byte[] expected = {
      6,
      15,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0, // version 6, LEASE, reqId 0
      5,
      0,
      0,
      0,
      0,
      0,
      0,
      0, // epoch 5
      7,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      (byte) 0xEF,
      (byte) 0xBE,
      0,
      0,
      0,
      0,
      0,
      0, // ballot (7, 0xBEEF)
      8,
      7,
      6,
      5,
      4,
      3,
      2,
      1, // stamp
      1 // grant
    };
    TxFrame.Lease grant = new TxFrame.Lease(0, 5, BALLOT, 0x0102030405060708L, TxFrame.F_GRANT);
    assertArrayEquals(expected, TxFrame.encode(grant));
    TxFrame.Lease back = (TxFrame.Lease) TxFrame.decode(expected, 0, expected.length);
    assertEquals(grant, back);
    assertEquals(true, back.grant());
    expected[expected.length - 1] = 0;
    assertEquals(
        false, ((TxFrame.Lease) TxFrame.decode(expected, 0, expected.length)).grant(), "a request");
  }

  /**
   * A decision byte for byte (in proposals, in what a member remembers, in its EPOCH record): txid,
   * kind, commit timestamp, the transaction's epoch; an unknown kind is refused.
   */
  @Test
  void aDecisionCarriesItsKindAndItsTransactionsEpoch() {
    dev.larder.codec.ByteSink out = new dev.larder.codec.ByteSink();
    TxFrame.writeDecisions(
        out, List.of(new TxFrame.Decision(new TxId(1, 2), TxFrame.D_UNKNOWN, 0x10, 3)));
    byte[] expected = {
      1,
      0,
      0,
      0, // one decision
      1,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      2,
      0,
      0,
      0,
      0,
      0,
      0,
      0, // txid: incarnation 1, counter 2
      3, // UNKNOWN (1 COMMIT, 2 ABORT)
      0x10,
      0,
      0,
      0,
      0,
      0,
      0,
      0, // commit timestamp
      3,
      0,
      0,
      0,
      0,
      0,
      0,
      0 // the transaction's epoch
    };
    assertArrayEquals(expected, out.toByteArray());
    TxFrame.Decision back =
        TxFrame.readDecisions(new dev.larder.codec.ByteSource(expected)).getFirst();
    assertEquals(new TxFrame.Decision(new TxId(1, 2), TxFrame.D_UNKNOWN, 0x10, 3), back);
    byte[] unknownKind = expected.clone();
    unknownKind[20] = 4;
    assertThrows(
        CodecException.class,
        () -> TxFrame.readDecisions(new dev.larder.codec.ByteSource(unknownKind)));
  }

  @Test
  void anotherVersionATruncationAndTrailingBytesAreRefused() {
    for (TxFrame f : samples()) {
      byte[] bytes = TxFrame.encode(f);
      byte[] otherVersion = bytes.clone();
      otherVersion[0] = 1;
      assertThrows(
          CodecException.class, () -> TxFrame.decode(otherVersion, 0, otherVersion.length));
      assertThrows(CodecException.class, () -> TxFrame.decode(bytes, 0, bytes.length - 1));
      byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
      assertThrows(CodecException.class, () -> TxFrame.decode(longer, 0, longer.length));
    }
  }

  @Test
  void randomAndFlippedBytesNeverFailOtherwise() {
    Random random = new Random(35);
    List<TxFrame> samples = samples();
    for (int i = 0; i < 20_000; i++) {
      byte[] bytes;
      if (i % 2 == 0) {
        bytes = new byte[random.nextInt(80)];
        random.nextBytes(bytes);
        if (bytes.length > 0) {
          bytes[0] = TxFrame.VERSION;
        }
      } else {
        bytes = TxFrame.encode(samples.get(random.nextInt(samples.size())));
        bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
      }
      try {
        TxFrame.decode(bytes, 0, bytes.length);
      } catch (CodecException expected) {
        // refused: fine
      }
    }
  }
}
