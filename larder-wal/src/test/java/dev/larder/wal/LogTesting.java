package dev.larder.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Helpers for the log's tests: a replay that records what it is given. */
final class LogTesting {

  private LogTesting() {}

  /** Records replayed checkpoint entries and records. */
  static final class Collected implements LogReplay {
    final List<byte[]> entries = new ArrayList<>();
    final List<Long> sequences = new ArrayList<>();
    final List<byte[]> payloads = new ArrayList<>();
    final List<Integer> types = new ArrayList<>();
    long checkpointSequence;

    @Override
    public void checkpointEntry(long sequence, byte[] entry) {
      checkpointSequence = sequence;
      entries.add(entry);
    }

    @Override
    public void record(long sequence, int type, byte[] payload) {
      sequences.add(sequence);
      payloads.add(payload);
      types.add(type);
    }
  }

  /** Returns a payload that names its sequence, so replay can be checked byte for byte. */
  static byte[] payload(long sequence, int size) {
    ByteBuffer b = ByteBuffer.allocate(Math.max(8, size));
    b.putLong(sequence);
    for (int i = 8; i < b.capacity(); i++) {
      b.put((byte) (sequence * 31 + i));
    }
    return b.array();
  }

  static WriteAheadLog open(WalConfig config, Collected into) throws IOException {
    return WriteAheadLog.open(config, into);
  }
}
