package dev.larder.server.internal.memcache;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;

/**
 * The item operations both memcached flavours share, each one atomic on its key: storing in its six
 * modes (with CAS), arithmetic, and deletion with an optional CAS. Stateless.
 */
final class ItemStore {
  private ItemStore() {}

  /** How a store treats an existing item. */
  enum Mode {
    SET,
    ADD,
    REPLACE,
    APPEND,
    PREPEND
  }

  /** What a store or arithmetic did. */
  enum Outcome {
    STORED,
    NOT_STORED,
    EXISTS,
    NOT_FOUND,
    NON_NUMERIC
  }

  /**
   * The outcome and, when stored, the item.
   *
   * @param outcome what happened
   * @param item the item now stored, or null
   */
  record Result(Outcome outcome, StoredValue item) {}

  /**
   * Returns the outcome.
   *
   * @param s the session
   * @param key the key
   * @param mode how to treat an existing item
   * @param flags client flags (ignored by append and prepend, which keep the item's)
   * @param expiry absolute expiry in ms, 0 none (ignored by append and prepend)
   * @param data the value
   * @param cas the CAS unique the item must have, or 0 for none
   */
  static Result store(
      MemcacheSession s, byte[] key, Mode mode, int flags, long expiry, byte[] data, long cas) {
    if (mode == Mode.SET && cas == 0) {
      // A plain set stores whatever was there: a put, with no read of the old item (a compute
      // would copy it out first, two kilobytes on average under memcslap).
      return new Result(
          Outcome.STORED,
          s.keyspace()
              .put(
                  MemcacheSession.DB,
                  key,
                  new StoredValue(ValueType.STRING, 0, expiry, flags, data)));
    }
    Outcome[] outcome = new Outcome[1];
    Keyspace.Change change =
        s.keyspace()
            .update(
                MemcacheSession.DB,
                key,
                before -> {
                  StoredValue item =
                      before != null && before.type() == ValueType.STRING ? before : null;
                  outcome[0] =
                      mode == Mode.ADD && before != null && cas == 0
                          ? Outcome.NOT_STORED
                          : decide(mode, item, cas);
                  if (outcome[0] != Outcome.STORED) {
                    return before;
                  }
                  return switch (mode) {
                    case APPEND -> item.withPayload(concat(item.payload(), data));
                    case PREPEND -> item.withPayload(concat(data, item.payload()));
                    default -> new StoredValue(ValueType.STRING, 0, expiry, flags, data);
                  };
                });
    return new Result(outcome[0], outcome[0] == Outcome.STORED ? change.after() : null);
  }

  private static Outcome decide(Mode mode, StoredValue item, long cas) {
    if (cas != 0) {
      if (item == null) {
        return Outcome.NOT_FOUND;
      }
      if (item.version() != cas) {
        return Outcome.EXISTS;
      }
    }
    return switch (mode) {
      case SET -> Outcome.STORED;
      case ADD -> item == null ? Outcome.STORED : Outcome.NOT_STORED;
      default -> item == null ? Outcome.NOT_STORED : Outcome.STORED;
    };
  }

  /**
   * Adds to or subtracts from a decimal item: increments wrap at 2^64, decrements stop at 0.
   *
   * @param s the session
   * @param key the key
   * @param delta the unsigned amount
   * @param incr whether to add
   * @param vivify if not null, an item to create (initial value, expiry) when absent
   * @param cas the CAS unique the item must have, or 0
   * @return the outcome and the new item
   */
  static Result arithmetic(
      MemcacheSession s, byte[] key, long delta, boolean incr, StoredValue vivify, long cas) {
    Outcome[] outcome = new Outcome[1];
    Keyspace.Change change =
        s.keyspace()
            .update(
                MemcacheSession.DB,
                key,
                before -> {
                  if (before != null && before.type() != ValueType.STRING) {
                    outcome[0] = Outcome.NON_NUMERIC;
                    return before;
                  }
                  StoredValue item = before;
                  if (item == null) {
                    outcome[0] = vivify == null ? Outcome.NOT_FOUND : Outcome.STORED;
                    return vivify == null ? before : vivify;
                  }
                  if (cas != 0 && item.version() != cas) {
                    outcome[0] = Outcome.EXISTS;
                    return before;
                  }
                  Long current = MemcacheSession.unsigned64(item.payload());
                  if (current == null) {
                    outcome[0] = Outcome.NON_NUMERIC;
                    return before;
                  }
                  long next =
                      incr
                          ? current + delta
                          : Long.compareUnsigned(current, delta) < 0 ? 0 : current - delta;
                  outcome[0] = Outcome.STORED;
                  return item.withPayload(
                      Long.toUnsignedString(next).getBytes(StandardCharsets.US_ASCII));
                });
    return new Result(outcome[0], outcome[0] == Outcome.STORED ? change.after() : null);
  }

  /**
   * Returns STORED when deleted, NOT_FOUND, or EXISTS on a CAS mismatch.
   *
   * @param s the session
   * @param key the key
   * @param cas the CAS unique the item must have, or 0
   */
  static Outcome delete(MemcacheSession s, byte[] key, long cas) {
    Outcome[] outcome = new Outcome[1];
    s.keyspace()
        .update(
            MemcacheSession.DB,
            key,
            before -> {
              if (before == null) {
                outcome[0] = Outcome.NOT_FOUND;
                return null;
              }
              if (cas != 0 && before.version() != cas) {
                outcome[0] = Outcome.EXISTS;
                return before;
              }
              outcome[0] = Outcome.STORED;
              return null;
            });
    return outcome[0];
  }

  /**
   * Returns the touched item, or null if absent.
   *
   * @param s the session
   * @param key the key
   * @param expiry the new absolute expiry, 0 for none
   */
  static StoredValue touch(MemcacheSession s, byte[] key, long expiry) {
    // memcached keeps an item's CAS unique when it only changes its expiry
    Keyspace.Change change =
        s.keyspace()
            .update(
                MemcacheSession.DB,
                key,
                before ->
                    before == null || before.type() != ValueType.STRING
                        ? before
                        : before.withExpiry(expiry),
                false);
    return change.after() != null && change.after().type() == ValueType.STRING
        ? change.after()
        : null;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
