package dev.larder.bench.sessions;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;

/**
 * One small object of a session, as the GemStone experiment's Seaside counter session holds about
 * 250 of them: a slot number, a counter every request increments, and about 190 characters of
 * state, so that a session is about 50 KB.
 *
 * @param slot the object's place in its session, 0-249
 * @param count how many requests have touched it
 * @param state the object's other state
 */
public record SessionObject(int slot, long count, String state) {

  /**
   * Objects per session (the GemStone sessions experiment: "about 250 objects or 50k bytes per
   * request").
   */
  public static final int PER_SESSION = 250;

  /** The codec both stores use, so that both hold the same bytes. */
  public static final Codec<SessionObject> CODEC = Codecs.record(SessionObject.class);

  private static final String FILLER = "x".repeat(190);

  /**
   * Returns the object a new session starts with in that slot.
   *
   * @param slot a slot
   */
  public static SessionObject fresh(int slot) {
    return new SessionObject(slot, 0, FILLER);
  }

  /** Returns this object after one more request. */
  public SessionObject touched() {
    return new SessionObject(slot, count + 1, state);
  }
}
