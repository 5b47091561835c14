package dev.larder.cluster;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A wall clock the test moves by hand, shared by the members of an in-process cluster. */
final class TestClock implements InstantSource {

  private final AtomicLong millis = new AtomicLong(1_000_000_000L);

  void advance(long ms) {
    millis.addAndGet(ms);
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }
}
