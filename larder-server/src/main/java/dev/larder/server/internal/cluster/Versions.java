package dev.larder.server.internal.cluster;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Versions of a clustered keyspace's writes (memcached's CAS unique, WATCH's witness), made by the
 * member that takes the command, unique without asking the others.
 *
 * <p>Implementation notes. A version is a hybrid logical clock shifted left by 10 bits, with a
 * 10-bit tag of the member's name in the low bits: {@code clock = max(clock + 1, (now_ms -
 * 2025-01-01) << 12)}, {@code version = clock << 10 | tag} (63 bits: the milliseconds since 2025
 * fill 41 bits until 2094). Each member's versions strictly increase; two members' differ in their
 * tags unless their names' tags collide (one chance in 1024 per pair), in which case they could
 * coincide only for writes in the same millisecond with the same counter. A key written again after
 * it was deleted gets a version later than its earlier ones (the clock follows wall time), as far
 * as the members' clocks agree. The cost over a standalone server's counter: a version is a 9-byte
 * varint in the stored value instead of 1 to 4 bytes.
 *
 * <p>Thread-safe.
 */
final class Versions implements LongSupplier {
  /** 2025-01-01T00:00:00Z in Unix milliseconds: the clock's epoch. */
  private static final long EPOCH = 1_735_689_600_000L;

  private final AtomicLong clock = new AtomicLong();
  private final long tag;
  private final LongSupplier nowMillis;

  /**
   * @param memberName this member's name in the cluster
   * @param nowMillis the wall clock
   */
  Versions(String memberName, LongSupplier nowMillis) {
    this.tag = memberName.hashCode() & 0x3FF;
    this.nowMillis = nowMillis;
  }

  @Override
  public long getAsLong() {
    long floor = Math.max(0, nowMillis.getAsLong() - EPOCH) << 12;
    long c = clock.updateAndGet(prev -> Math.max(prev + 1, floor));
    return c << 10 | tag;
  }
}
