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
                    // a new item, as memcached makes one: the meta state starts afresh
                    case APPEND -> item.withPayload(concat(item.payload(), data)).withItemState(0);
                    case PREPEND -> item.withPayload(concat(data, item.payload())).withItemState(0);
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

  /** The expiry an arithmetic leaves on the item it changed or created. */
  @FunctionalInterface
  interface ExpiryRule {
    /**
     * Returns the expiry to leave on the item.
     *
     * @param item the item before (the created one when created)
     * @param created whether the item was created
     * @return the absolute expiry in ms, 0 for none
     */
    long expiry(StoredValue item, boolean created);
  }

  /**
   * What an arithmetic did.
   *
   * @param outcome STORED, NOT_FOUND, EXISTS or NON_NUMERIC
   * @param before the item before, null if absent (or not stored)
   * @param item the item now stored, null unless STORED
   * @param number the new counter value, when STORED
   * @param created whether the item was created (a miss with an initial value)
   */
  record Arithmetic(
      Outcome outcome, StoredValue before, StoredValue item, long number, boolean created) {}

  /**
   * Adds to or subtracts from a decimal item, as memcached: the item's text is read as C's strtoull
   * reads it (white space after the digits allowed), increments wrap at 2^64, decrements stop at 0,
   * and a result shorter than the item's text is padded with spaces to its length (memcached
   * rewrites the item in place), which text clients see on the next get. The item gets a new CAS
   * unique; its flags are kept, and its item state.
   *
   * @param s the session
   * @param key the key
   * @param delta the unsigned amount
   * @param incr whether to add
   * @param initial if not null, the value of an item to create when absent (meta's N and J)
   * @param cas the CAS unique the item must have, or 0 for none
   * @param expiry the expiry to leave on the item
   */
  static Arithmetic arithmetic(
      MemcacheSession s,
      byte[] key,
      long delta,
      boolean incr,
      Long initial,
      long cas,
      ExpiryRule expiry) {
    Arithmetic[] result = new Arithmetic[1];
    Keyspace.Change change =
        s.keyspace()
            .update(
                MemcacheSession.DB,
                key,
                before -> {
                  result[0] = step(before, delta, incr, initial, cas, expiry);
                  return result[0].item() == null ? before : result[0].item();
                });
    Arithmetic r = result[0];
    // the stored item has the version the keyspace gave it
    return r.outcome() != Outcome.STORED
        ? r
        : new Arithmetic(r.outcome(), r.before(), change.after(), r.number(), r.created());
  }

  private static Arithmetic step(
      StoredValue before, long delta, boolean incr, Long initial, long cas, ExpiryRule expiry) {
    if (before == null) {
      if (initial == null) {
        return new Arithmetic(Outcome.NOT_FOUND, null, null, 0, false);
      }
      StoredValue created =
          new StoredValue(ValueType.STRING, 0, 0, 0, ascii(Long.toUnsignedString(initial)));
      return new Arithmetic(
          Outcome.STORED, null, created.withExpiry(expiry.expiry(created, true)), initial, true);
    }
    if (before.type() != ValueType.STRING || before.payload().length == 0) {
      return new Arithmetic(Outcome.NON_NUMERIC, before, null, 0, false);
    }
    if (cas != 0 && before.version() != cas) {
      return new Arithmetic(Outcome.EXISTS, before, null, 0, false);
    }
    Long current = CNumbers.uint64(before.payload(), 0);
    if (current == null) {
      return new Arithmetic(Outcome.NON_NUMERIC, before, null, 0, false);
    }
    long next =
        incr ? current + delta : Long.compareUnsigned(current, delta) < 0 ? 0 : current - delta;
    String digits = Long.toUnsignedString(next);
    byte[] payload = ascii(digits);
    // A longer number needs a new item, which starts without meta state; one that fits is written
    // in place, keeping it
    long state = payload.length > before.payload().length ? 0 : before.itemState();
    if (payload.length < before.payload().length) {
      payload = java.util.Arrays.copyOf(payload, before.payload().length);
      java.util.Arrays.fill(payload, digits.length(), payload.length, (byte) ' ');
    }
    StoredValue after =
        before.withPayload(payload).withExpiry(expiry.expiry(before, false)).withItemState(state);
    return new Arithmetic(Outcome.STORED, before, after, next, false);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * A meta ms store, as memcached's: with a CAS, SET and REPLACE become a CAS store (NOT_FOUND when
   * absent, EXISTS when the CAS differs, C0 included), ADD ignores it, APPEND and PREPEND check it
   * when it is not 0; with {@code stale}, a CAS store whose CAS is below the item's stores the
   * value as a stale item that keeps the old TTL and token (meta's {@code I}).
   *
   * @param s the session
   * @param key the key
   * @param mode the store mode
   * @param item the item to store (version 0)
   * @param hasCas whether a CAS was given
   * @param cas the CAS given
   * @param stale whether a lower CAS may store a stale item
   * @return the outcome and the stored item
   */
  static Result metaStore(
      MemcacheSession s,
      byte[] key,
      Mode mode,
      StoredValue item,
      boolean hasCas,
      long cas,
      boolean stale) {
    boolean casMode = hasCas && (mode == Mode.SET || mode == Mode.REPLACE);
    if (!casMode && mode == Mode.SET) {
      return new Result(Outcome.STORED, s.keyspace().put(MemcacheSession.DB, key, item));
    }
    Outcome[] outcome = new Outcome[1];
    Keyspace.Change change =
        s.keyspace()
            .update(
                MemcacheSession.DB,
                key,
                before -> {
                  StoredValue old =
                      before != null && before.type() == ValueType.STRING ? before : null;
                  if (before != null && old == null) {
                    outcome[0] = Outcome.NOT_STORED;
                    return before;
                  }
                  StoredValue next =
                      metaStep(mode, casMode, old, item, hasCas, cas, stale, outcome);
                  return next == null ? before : next;
                });
    return new Result(outcome[0], outcome[0] == Outcome.STORED ? change.after() : null);
  }

  private static StoredValue metaStep(
      Mode mode,
      boolean casMode,
      StoredValue old,
      StoredValue item,
      boolean hasCas,
      long cas,
      boolean stale,
      Outcome[] outcome) {
    if (casMode) {
      if (old == null) {
        outcome[0] = Outcome.NOT_FOUND;
        return null;
      }
      if (cas != 0 && cas == old.version()) {
        outcome[0] = Outcome.STORED;
        return item;
      }
      if (cas != 0 && stale && Long.compareUnsigned(cas, old.version()) < 0) {
        outcome[0] = Outcome.STORED;
        long state = item.itemState() | ItemState.STALE | (old.itemState() & ItemState.TOKEN_SENT);
        return item.withExpiry(old.expiresAtMillis()).withItemState(state);
      }
      outcome[0] = Outcome.EXISTS;
      return null;
    }
    return switch (mode) {
      case ADD -> {
        outcome[0] = old == null ? Outcome.STORED : Outcome.NOT_STORED;
        yield old == null ? item : null;
      }
      case REPLACE -> {
        outcome[0] = old == null ? Outcome.NOT_STORED : Outcome.STORED;
        yield old == null ? null : item;
      }
      default -> {
        if (old == null) {
          outcome[0] = Outcome.NOT_STORED;
          yield null;
        }
        if (hasCas && cas != 0 && cas != old.version()) {
          outcome[0] = Outcome.EXISTS;
          yield null;
        }
        outcome[0] = Outcome.STORED;
        byte[] joined =
            mode == Mode.APPEND
                ? concat(old.payload(), item.payload())
                : concat(item.payload(), old.payload());
        yield old.withPayload(joined).withItemState(0);
      }
    };
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
                        : before
                            .withExpiry(expiry)
                            .withItemState(
                                ItemState.fetched(before.itemState(), s.keyspace().now() / 1000)),
                false);
    return change.after() != null && change.after().type() == ValueType.STRING
        ? change.after()
        : null;
  }

  /**
   * Records a fetch of an item in its state (fetched, last access), as memcached bumps an item it
   * serves, when that changes the state: without a new CAS unique, and only if the item is still
   * the one that was read (same version), so a newer write is never overwritten.
   *
   * @param s the session
   * @param key the key
   * @param version the version of the item that was served
   * @param state the item's state as read
   */
  static void recordFetch(MemcacheSession s, byte[] key, long version, long state) {
    long now = s.keyspace().now() / 1000;
    if (ItemState.fetched(state, now) == state) {
      return;
    }
    s.keyspace()
        .update(
            MemcacheSession.DB,
            key,
            before ->
                before == null || before.version() != version
                    ? before
                    : before.withItemState(ItemState.fetched(before.itemState(), now)),
            false);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
