package dev.larder.server.internal.memcache;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * memcached's meta protocol as memcached 1.6.18 serves it: {@code mg}, {@code ms}, {@code md},
 * {@code ma}, {@code mn}, {@code me}, with every flag 1.6.18 accepts (see {@link MetaFlags}), stale
 * items and recache tokens ({@code I}, {@code N}, {@code R}, answered {@code W}, {@code X}, {@code
 * Z}), hit state and last access ({@code h}, {@code l}, {@code u}), base64 keys ({@code b}) and
 * {@code q}'s quiet mode, which hides only the nominal replies memcached hides.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Each command's checks run in memcached's order, so a line with several faults earns the same
 * error. The item state the meta protocol keeps per item (stale, token sent, fetched, last access,
 * binary key) is {@link ItemState}, stored in the value beside the item. Every change is one {@link
 * Keyspace#update} on the key; its function is pure (it may run more than once), so it computes the
 * new item and the reply line together from the item it is given, and the reply of the run that
 * took effect is sent. {@code mg} changes an item without giving it a new CAS unique (its TTL,
 * token and access state), as memcached; {@code mg N}'s creation of a missing item is a separate
 * add before it, which gives the new item its CAS unique.
 *
 * <p>Flags 1.6.18 does not know ({@code E}, {@code x} among them: later memcached versions added
 * them) are answered {@code CLIENT_ERROR invalid flag}, as 1.6.18 answers. Stateless.
 */
final class MetaCommands {
  private static final String BAD_FORMAT = "CLIENT_ERROR bad command line format";
  private static final String OPAQUE_TOO_LONG = "CLIENT_ERROR opaque token too long";

  static final Map<String, TextCommands.Command> TABLE = new HashMap<>();

  static {
    TABLE.put("mg", counted(MetaCommands::mg));
    TABLE.put("ms", counted(MetaCommands::ms));
    TABLE.put("md", counted(MetaCommands::md));
    TABLE.put("ma", counted(MetaCommands::ma));
    TABLE.put(
        "mn",
        (s, t, d) -> {
          s.line("MN");
          s.writeOut();
        });
    TABLE.put("me", MetaCommands::me);
  }

  private MetaCommands() {}

  /** A command that counts in {@code cmd_meta}, as memcached counts mg, ms, md and ma. */
  private static TextCommands.Command counted(TextCommands.Command c) {
    return (s, t, d) -> {
      s.stats.cmdMeta.increment();
      c.run(s, t, d);
    };
  }

  /**
   * The checks every meta command makes before its flags: two words at least ({@code ERROR}), a key
   * of at most 250 bytes, at most {@value MetaFlags#MAX_WORDS} words. Returns the error line, or
   * null.
   */
  private static String lineError(List<byte[]> t, String tooMany) {
    if (t.size() < 2) {
      return "ERROR";
    }
    if (t.get(1).length > MemcacheSession.MAX_KEY) {
      return BAD_FORMAT;
    }
    return t.size() > MetaFlags.MAX_WORDS ? tooMany : null;
  }

  /** Appends {@code k<key>}, base64 and a {@code b} after it for a binary key. */
  private static void key(StringBuilder out, byte[] key, boolean binary) {
    out.append(" k");
    if (binary) {
      out.append(MetaBase64.encode(key)).append(" b");
    } else {
      out.append(new String(key, StandardCharsets.ISO_8859_1));
    }
  }

  /**
   * Appends the opaque and key flags of the request, in their order (the replies without items).
   */
  private static String opaqueAndKey(MetaFlags f) {
    StringBuilder out = new StringBuilder();
    for (int i = f.from; i < f.tokens.size(); i++) {
      byte[] t = f.tokens.get(i);
      if (t[0] == 'O') {
        out.append(' ').append(new String(t, StandardCharsets.ISO_8859_1));
      } else if (t[0] == 'k') {
        key(out, f.key, f.keyBinary);
      }
    }
    return out.toString();
  }

  // ---------------------------------------------------------------------------------------- mg

  @SuppressWarnings("ReferenceEquality") // the step returns the item given if it changed nothing
  private static void mg(MemcacheSession s, List<byte[]> t, byte[] data) {
    String error = lineError(t, "CLIENT_ERROR options flags are too long");
    MetaFlags f = error == null ? MetaFlags.parse(t, 2) : null;
    if (error == null) {
      error = f.error != null ? f.error : f.opaqueTooLong() ? OPAQUE_TOO_LONG : null;
    }
    if (error != null) {
      s.line(error);
      return;
    }
    boolean touch = f.newTtl;
    (touch ? s.stats.cmdTouch : s.stats.cmdGet).increment();
    long now = s.keyspace().now();
    // Most hits change nothing (no TTL, token or access to record): answered from a plain read.
    StoredValue seen = s.item(f.key);
    if (seen != null) {
      MgStep step = MgStep.run(s, f, seen, false, now);
      if (step.item == seen) {
        hit(s, f, touch, step.line, seen);
        return;
      }
    }
    String[] reply = new String[1];
    StoredValue after = null;
    if (f.vivify && seen == null) {
      // A miss creates an empty item (a new CAS unique: an add), answered as a created hit.
      Keyspace.Change created =
          s.keyspace()
              .update(
                  MemcacheSession.DB,
                  f.key,
                  before -> {
                    if (before != null) {
                      return before;
                    }
                    StoredValue empty = new StoredValue(ValueType.STRING, 0, 0, 0, new byte[0]);
                    MgStep step = MgStep.run(s, f, empty, true, now);
                    reply[0] = step.line;
                    return step.item;
                  },
                  true);
      if (created.before() == null && created.after() != null) {
        after = created.after();
        // the reply shows the CAS unique the add gave the item
        StoredValue fresh = new StoredValue(ValueType.STRING, after.version(), 0, 0, new byte[0]);
        reply[0] = MgStep.run(s, f, fresh, true, now).line;
      }
    }
    if (after == null) {
      Keyspace.Change change =
          s.keyspace()
              .update(
                  MemcacheSession.DB,
                  f.key,
                  before -> {
                    if (before == null || before.type() != ValueType.STRING) {
                      reply[0] = null;
                      return before;
                    }
                    MgStep step = MgStep.run(s, f, before, false, now);
                    reply[0] = step.line;
                    return step.item;
                  },
                  false);
      after =
          change.before() == null || change.before().type() != ValueType.STRING
              ? null
              : change.after();
    }
    if (after == null) {
      (touch ? s.stats.touchMisses : s.stats.getMisses).increment();
      s.stats.missed(f.key);
      s.stats.watchers.fetched(f.key, false, 0, s.connectionId);
      if (!f.noReply) {
        s.line("EN" + opaqueAndKey(f));
      }
      return;
    }
    hit(s, f, touch, reply[0], after);
  }

  private static void hit(
      MemcacheSession s, MetaFlags f, boolean touch, String line, StoredValue item) {
    (touch ? s.stats.touchHits : s.stats.getHits).increment();
    s.stats.watchers.fetched(f.key, true, item.payload().length, s.connectionId);
    s.line(line);
    if (f.value) {
      s.data(item.payload());
    }
  }

  /** One run of mg's change on a live item: the item to store and the reply line. */
  private record MgStep(StoredValue item, String line) {
    static MgStep run(MemcacheSession s, MetaFlags f, StoredValue it, boolean created, long now) {
      StringBuilder out = new StringBuilder(f.value ? "VA " + it.payload().length : "HD");
      long expiry = it.expiresAtMillis();
      long state = it.itemState();
      boolean won = false;
      for (int i = f.from; i < f.tokens.size(); i++) {
        byte[] t = f.tokens.get(i);
        switch (t[0]) {
          case 'T' -> expiry = s.expiryMillis(f.exptime, now);
          case 'N' -> {
            if (created) {
              expiry = s.expiryMillis(f.vivifyTtl, now);
              won = true;
            }
          }
          case 'R' -> {
            long recache = s.expiryMillis(f.recache, now);
            // memcached compares whole seconds: a TTL below the recache time by less than one
            // is not below it
            if (!ItemState.has(state, ItemState.TOKEN_SENT)
                && !created
                && expiry != 0
                && expiry + 999 < recache) {
              won = true;
            }
          }
          case 's' -> out.append(" s").append(it.payload().length);
          case 't' -> out.append(" t").append(ttl(expiry, now));
          case 'c' -> out.append(" c").append(Long.toUnsignedString(it.version()));
          case 'f' -> out.append(" f").append(Integer.toUnsignedString(it.clientFlags()));
          case 'l' -> {
            long last = ItemState.lastAccessSeconds(state);
            if (last != 0) {
              out.append(" l").append(Math.max(0, now / 1000 - last));
            }
          }
          case 'h' -> out.append(" h").append(ItemState.has(state, ItemState.FETCHED) ? 1 : 0);
          case 'O' -> out.append(' ').append(new String(t, StandardCharsets.ISO_8859_1));
          case 'k' -> key(out, f.key, ItemState.has(state, ItemState.KEY_BINARY));
          default -> {}
        }
      }
      if (ItemState.has(state, ItemState.TOKEN_SENT)) {
        out.append(" Z");
      }
      if (ItemState.has(state, ItemState.STALE)) {
        out.append(" X");
        won |= !ItemState.has(state, ItemState.TOKEN_SENT);
      }
      if (won) {
        out.append(" W");
        state |= ItemState.TOKEN_SENT;
      }
      if (!f.noUpdate) {
        state = ItemState.fetched(state, now / 1000);
      }
      StoredValue next =
          expiry == it.expiresAtMillis() && state == it.itemState()
              ? it
              : it.withExpiry(expiry).withItemState(state);
      return new MgStep(next, out.toString());
    }
  }

  /** meta's t: seconds left, -1 for none. */
  private static long ttl(long expiry, long now) {
    return expiry == 0 ? -1 : Math.max(0, (expiry - now + 999) / 1000);
  }

  // ---------------------------------------------------------------------------------------- ms

  /** The store an ms line asks for, after memcached's mode switch. */
  private static ItemStore.Mode msMode(char mode) {
    return switch (mode) {
      case 0, 'S' -> ItemStore.Mode.SET;
      case 'E' -> ItemStore.Mode.ADD;
      case 'A' -> ItemStore.Mode.APPEND;
      case 'P' -> ItemStore.Mode.PREPEND;
      case 'R' -> ItemStore.Mode.REPLACE;
      default -> null;
    };
  }

  /** ms's checks before storing: the error line, or null. */
  private static String msError(List<byte[]> t, MetaFlags[] parsed) {
    String error = lineError(t, "CLIENT_ERROR options flags too long");
    if (error == null && t.size() == 2) {
      error = BAD_FORMAT;
    }
    if (error != null) {
      return error;
    }
    MetaFlags f = MetaFlags.parse(t, 3);
    parsed[0] = f;
    if (f.error != null) {
      return f.error;
    }
    if (f.opaqueTooLong()) {
      return OPAQUE_TOO_LONG;
    }
    return msMode(f.mode) == null ? "CLIENT_ERROR invalid mode for ms M token" : null;
  }

  /**
   * An ms whose data was too large: memcached's reply, and the item under the key removed whatever
   * the mode (memcached 1.6.18 does so, so that a stale value does not outlive a failed write).
   * Errors in the line come first, as memcached checks them first.
   */
  static void tooLarge(MemcacheSession s, List<byte[]> t, byte[] data) {
    MetaFlags[] parsed = new MetaFlags[1];
    String error = msError(t, parsed);
    if (error != null) {
      s.line(error);
      return;
    }
    s.stats.storeTooLarge.increment();
    ItemStore.delete(s, parsed[0].key, 0);
    s.line("SERVER_ERROR object too large for cache");
  }

  private static void ms(MemcacheSession s, List<byte[]> t, byte[] data) {
    MetaFlags[] parsed = new MetaFlags[1];
    String error = msError(t, parsed);
    if (error == null && data == null) {
      // the decoder read no data block for this line
      error = BAD_FORMAT;
    }
    if (error != null) {
      s.line(error);
      return;
    }
    MetaFlags f = parsed[0];
    s.stats.cmdSet.increment();
    if (s.server.outOfMemory()) {
      s.line("SERVER_ERROR out of memory storing object");
      return;
    }
    ItemStore.Mode mode = msMode(f.mode);
    long state = f.keyBinary ? ItemState.KEY_BINARY : 0;
    StoredValue item =
        new StoredValue(
            ValueType.STRING,
            0,
            s.expiryMillis(f.newTtl ? f.exptime : 0),
            (int) f.clientFlags,
            data,
            state);
    ItemStore.Result result =
        ItemStore.metaStore(s, f.key, mode, item, f.hasCas, f.cas, f.setStale);
    if (f.hasCas && (mode == ItemStore.Mode.SET || mode == ItemStore.Mode.REPLACE)) {
      s.stats.cas(result.outcome());
    }
    if (result.outcome() == ItemStore.Outcome.STORED) {
      s.stats.totalItems.increment();
    }
    if (s.stats.watchers.watching(MemcacheWatchers.MUTATIONS)) {
      s.stats.watchers.stored(
          f.key,
          mode.name().toLowerCase(java.util.Locale.ROOT),
          result.outcome().name().toLowerCase(java.util.Locale.ROOT),
          s.logTtl(f.newTtl ? f.exptime : 0),
          data.length,
          s.connectionId);
    }
    String status =
        switch (result.outcome()) {
          case STORED -> "HD";
          case EXISTS -> "EX";
          case NOT_FOUND -> "NF";
          default -> "NS";
        };
    if (status.equals("HD") && f.noReply) {
      return;
    }
    StringBuilder out = new StringBuilder(status);
    for (int i = 3; i < t.size(); i++) {
      byte[] token = t.get(i);
      switch (token[0]) {
        case 'O' -> out.append(' ').append(new String(token, StandardCharsets.ISO_8859_1));
        case 'k' -> key(out, f.key, f.keyBinary);
        case 'c' ->
            out.append(" c")
                .append(
                    result.item() == null ? "0" : Long.toUnsignedString(result.item().version()));
        default -> {}
      }
    }
    s.line(out.toString());
  }

  // ---------------------------------------------------------------------------------------- md

  private static void md(MemcacheSession s, List<byte[]> t, byte[] data) {
    String error = lineError(t, "CLIENT_ERROR options flags too long");
    MetaFlags f = error == null ? MetaFlags.parse(t, 2) : null;
    if (error == null) {
      error =
          f.error != null
              ? "CLIENT_ERROR invalid or duplicate flag"
              : f.opaqueTooLong() ? OPAQUE_TOO_LONG : null;
    }
    if (error != null) {
      s.line(error);
      return;
    }
    long expiry = f.newTtl ? s.expiryMillis(f.exptime) : 0;
    String[] status = new String[1];
    s.keyspace()
        .update(
            MemcacheSession.DB,
            f.key,
            before -> {
              if (before == null || before.type() != ValueType.STRING) {
                status[0] = "NF";
                return before;
              }
              if (f.hasCas && before.version() != f.cas) {
                status[0] = "EX";
                return before;
              }
              status[0] = "HD";
              if (!f.setStale) {
                return null;
              }
              // Marked stale, not removed: a new CAS unique, the token free for the next client.
              long state = (before.itemState() & ~ItemState.TOKEN_SENT) | ItemState.STALE;
              return (f.newTtl ? before.withExpiry(expiry) : before).withItemState(state);
            },
            true);
    if (!f.setStale) {
      (status[0].equals("HD") ? s.stats.deleteHits : s.stats.deleteMisses).increment();
    }
    if (!(status[0].equals("HD") && f.noReply)) {
      s.line(status[0] + opaqueAndKey(f));
    }
  }

  // ---------------------------------------------------------------------------------------- ma

  private static void ma(MemcacheSession s, List<byte[]> t, byte[] data) {
    String error = lineError(t, "CLIENT_ERROR options flags too long");
    MetaFlags f = error == null ? MetaFlags.parse(t, 2) : null;
    if (error == null && f.error != null) {
      error = "CLIENT_ERROR invalid or duplicate flag";
    }
    boolean incr = true;
    if (error == null) {
      switch (f.mode) {
        case 0, 'I', '+' -> incr = true;
        case 'D', '-' -> incr = false;
        default -> error = "CLIENT_ERROR invalid mode for ma M token";
      }
    }
    if (error == null && f.opaqueTooLong()) {
      error = OPAQUE_TOO_LONG;
    }
    if (error != null) {
      s.line(error);
      return;
    }
    long now = s.keyspace().now();
    ItemStore.Arithmetic r =
        ItemStore.arithmetic(
            s,
            f.key,
            f.delta,
            incr,
            f.vivify ? Long.valueOf(f.initial) : null,
            f.cas,
            (item, created) -> expiryAfterMa(s, f, item, created, now));
    if (r.outcome() == ItemStore.Outcome.NOT_FOUND
        || (r.outcome() == ItemStore.Outcome.STORED && !r.created())) {
      s.stats.arithmetic(incr, r.outcome() == ItemStore.Outcome.STORED);
    }
    switch (r.outcome()) {
      case STORED -> {
        if (f.noReply && !r.created()) {
          return;
        }
        String value = Long.toUnsignedString(r.number());
        StringBuilder out = new StringBuilder(f.value ? "VA " + value.length() : "HD");
        long expiry = r.before() == null ? 0 : r.before().expiresAtMillis();
        for (int i = 2; i < t.size(); i++) {
          byte[] token = t.get(i);
          switch (token[0]) {
            case 'c' -> out.append(" c").append(Long.toUnsignedString(r.item().version()));
            case 't' -> out.append(" t").append(ttl(expiry, now));
            case 'T' -> expiry = s.expiryMillis(f.exptime, now);
            case 'N' -> expiry = r.created() ? s.expiryMillis(f.vivifyTtl, now) : expiry;
            case 'O' -> out.append(' ').append(new String(token, StandardCharsets.ISO_8859_1));
            case 'k' -> key(out, f.key, f.keyBinary);
            default -> {}
          }
        }
        s.line(out.toString());
        if (f.value) {
          s.line(value);
        }
      }
      case NON_NUMERIC -> s.line("CLIENT_ERROR cannot increment or decrement non-numeric value");
      case EXISTS -> s.line("EX" + opaqueAndKey(f));
      default -> s.line("NF" + opaqueAndKey(f));
    }
  }

  /**
   * The expiry ma leaves on an item: its own (0 for a created one), changed by {@code T} and, on a
   * created item, {@code N}, the later flag winning as in memcached's loop; relative to the
   * command's {@code now}, from which its {@code t} is reported.
   */
  private static long expiryAfterMa(
      MemcacheSession s, MetaFlags f, StoredValue item, boolean created, long now) {
    long expiry = created ? 0 : item.expiresAtMillis();
    for (int i = 2; i < f.tokens.size(); i++) {
      byte c = f.tokens.get(i)[0];
      if (c == 'T') {
        expiry = s.expiryMillis(f.exptime, now);
      } else if (c == 'N' && created) {
        expiry = s.expiryMillis(f.vivifyTtl, now);
      }
    }
    return expiry;
  }

  // ---------------------------------------------------------------------------------------- me

  /** {@code me <key> [b]}: memcached's debug line about an item. */
  private static void me(MemcacheSession s, List<byte[]> t, byte[] data) {
    if (t.size() < 2 || t.get(1).length > MemcacheSession.MAX_KEY) {
      s.line(BAD_FORMAT);
      return;
    }
    byte[] key = t.get(1);
    if (t.size() >= 3 && t.get(2).length == 1 && t.get(2)[0] == 'b') {
      key = MetaBase64.decode(key);
      if (key == null) {
        s.line(BAD_FORMAT);
        return;
      }
    }
    StoredValue v = s.keyspace().peek(MemcacheSession.DB, key);
    if (v == null || v.type() != ValueType.STRING) {
      s.line("EN");
      return;
    }
    long now = s.keyspace().now();
    long last = ItemState.lastAccessSeconds(v.itemState());
    String shown =
        ItemState.has(v.itemState(), ItemState.KEY_BINARY)
            ? MetaBase64.encode(key)
            : new String(key, StandardCharsets.ISO_8859_1);
    s.line(
        "ME "
            + shown
            + " exp="
            + (v.volatileKey() ? -ttl(v.expiresAtMillis(), now) : -1)
            + " la="
            + (last == 0 ? 0 : Math.max(0, now / 1000 - last))
            + " cas="
            + Long.toUnsignedString(v.version())
            + " fetch="
            + (ItemState.has(v.itemState(), ItemState.FETCHED) ? "yes" : "no")
            + " cls=1 size="
            + v.payload().length);
  }
}
