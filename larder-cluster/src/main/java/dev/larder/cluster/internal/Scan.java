package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterMode;
import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jgroups.Address;

/** Counting or listing the entries a member is primary of (invalidation mode: all its own). */
final class Scan {

  private Scan() {}

  static Frame run(ClusterEngine engine, Topology t, boolean countOnly, long reqId) {
    Address self = engine.self();
    boolean all = engine.config.mode() == ClusterMode.INVALIDATION;
    long count = 0;
    List<byte[]> entries = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : engine.local.asMap().entrySet()) {
      int s = engine.segmentOf(e.getKey());
      if (all || (t.hash().primary(s).equals(self) && held(engine.table, s))) {
        count++;
        if (!countOnly) {
          entries.add(e.getKey());
          entries.add(e.getValue());
        }
      }
    }
    ByteSink out = new ByteSink(8);
    out.writeLong(count);
    return new Frame(Frame.T_REPLY, reqId, t.viewId(), Frame.S_OK, 0, null, out.toByteArray(),
        null, Frame.NO_INTS, List.of(), entries);
  }

  private static boolean held(SegmentTable table, int s) {
    table.lock(s);
    try {
      SegmentTable.State st = table.state(s);
      return st == SegmentTable.State.OWNED || st == SegmentTable.State.INCOMING;
    } finally {
      table.unlock(s);
    }
  }

  static long count(Frame reply) {
    return reply.value() == null ? 0 : new ByteSource(reply.value()).readLong();
  }
}
