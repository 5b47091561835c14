package dev.larder.server.internal.memcache;

import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * memcached's meta protocol: mg, ms, md, ma, mn, me. Flags implemented: mg {@code b c f k O q s t T
 * v}; ms {@code b c C F k O q T M(E A P R S)}; md {@code b C k O q}; ma {@code b c C N J D T M(I +
 * D -) q O t v k}; mg's {@code N} creates a missing item (empty, with N's TTL) and answers it with
 * {@code W}, and later hits on that item say {@code Z} until it is replaced, as memcached's do. Not
 * implemented (accepted and ignored, never answered with made-up values): mg's {@code h l R E u},
 * ms's {@code I}, md's {@code I T x}. Stateless (the recache tokens are the server's, in {@link
 * MemcacheStats}).
 */
final class MetaCommands {
  private static final String BAD_FORMAT = "CLIENT_ERROR bad command line format";

  static final Map<String, TextCommands.Command> TABLE = new HashMap<>();

  static {
    TABLE.put("mg", MetaCommands::mg);
    TABLE.put("ms", MetaCommands::ms);
    TABLE.put("md", MetaCommands::md);
    TABLE.put("ma", MetaCommands::ma);
    TABLE.put("mn", (s, t, d) -> s.line("MN"));
    TABLE.put("me", MetaCommands::me);
  }

  private MetaCommands() {}

  /** A meta request's key and flags: each flag a letter with an optional token. */
  private record Request(byte[] key, byte[] rawKey, Map<Character, String> flags) {
    boolean has(char f) {
      return flags.containsKey(f);
    }

    String token(char f) {
      return flags.get(f);
    }

    static Request parse(List<byte[]> t, int flagsFrom) {
      if (t.size() < 2) {
        return null;
      }
      Map<Character, String> flags = new LinkedHashMap<>();
      for (int i = flagsFrom; i < t.size(); i++) {
        String f = new String(t.get(i), StandardCharsets.ISO_8859_1);
        flags.put(f.charAt(0), f.substring(1));
      }
      byte[] raw = t.get(1);
      byte[] key = raw;
      if (flags.containsKey('b')) {
        try {
          key = Base64.getDecoder().decode(raw);
        } catch (IllegalArgumentException e) {
          return null;
        }
        if (key.length == 0 || key.length > MemcacheSession.MAX_KEY) {
          return null;
        }
      } else if (!MemcacheSession.validKey(raw)) {
        return null;
      }
      return new Request(key, raw, flags);
    }
  }

  /** The return flags a hit or a status carries, in the order they were asked. */
  private static String returned(MemcacheSession s, Request r, StoredValue v) {
    StringBuilder sb = new StringBuilder();
    r.flags()
        .forEach(
            (f, token) -> {
              String value =
                  switch (f) {
                    case 'c' -> v == null ? null : Long.toString(v.version());
                    case 'f' -> v == null ? null : Integer.toUnsignedString(v.clientFlags());
                    case 's' -> v == null ? null : Integer.toString(v.payload().length);
                    case 't' -> v == null ? null : Long.toString(s.ttlSeconds(v));
                    case 'k' -> new String(r.rawKey(), StandardCharsets.ISO_8859_1);
                    case 'O' -> token;
                    case 'b' -> r.has('k') ? "" : null;
                    default -> null;
                  };
              if (value != null) {
                sb.append(' ').append(f).append(value);
              }
            });
    return sb.toString();
  }

  private static void mg(MemcacheSession s, List<byte[]> t, byte[] data) {
    Request r = Request.parse(t, 2);
    if (r == null) {
      s.line(BAD_FORMAT);
      return;
    }
    s.stats.cmdGet.increment();
    StoredValue v;
    if (r.has('T')) {
      long ttl = MemcacheSession.signed(r.token('T').getBytes(StandardCharsets.ISO_8859_1));
      if (ttl == Long.MIN_VALUE) {
        s.line("CLIENT_ERROR bad token in command line format");
        return;
      }
      s.stats.cmdTouch.increment();
      v = ItemStore.touch(s, r.key(), s.expiryMillis(ttl));
    } else {
      v = s.item(r.key());
    }
    String win = "";
    if (v == null && r.has('N')) {
      // Autovivify: a miss creates an empty item with N's TTL, and this client, told W, is
      // the one to fill it.
      long ttl = MemcacheSession.signed(bytes(r.token('N')));
      if (ttl == Long.MIN_VALUE) {
        s.line("CLIENT_ERROR bad token in command line format");
        return;
      }
      ItemStore.Result created =
          ItemStore.store(s, r.key(), ItemStore.Mode.ADD, 0, s.expiryMillis(ttl), new byte[0], 0);
      v = created.outcome() == ItemStore.Outcome.STORED ? created.item() : s.item(r.key());
      if (created.outcome() == ItemStore.Outcome.STORED) {
        win = " W";
        s.stats.tokenSent(r.key(), v.version());
      }
    }
    if (v != null && win.isEmpty() && s.stats.tokenOut(r.key(), v.version())) {
      win = " Z";
    }
    if (v == null) {
      s.stats.getMisses.increment();
      if (!r.has('q')) {
        s.line("EN");
      }
      return;
    }
    s.stats.getHits.increment();
    if (r.has('v')) {
      s.line("VA " + v.payload().length + returned(s, r, v) + win);
      s.data(v.payload());
    } else {
      s.line("HD" + returned(s, r, v) + win);
    }
  }

  /**
   * An ms whose data was too large: memcached's reply, and the item under the key removed whatever
   * the mode (memcached 1.6.18 does so, so that a stale value does not outlive a failed write).
   */
  static void tooLarge(MemcacheSession s, List<byte[]> t, byte[] data) {
    Request r = Request.parse(t, 3);
    if (r != null) {
      ItemStore.delete(s, r.key(), 0);
    }
    s.line("SERVER_ERROR object too large for cache");
  }

  private static void ms(MemcacheSession s, List<byte[]> t, byte[] data) {
    Request r = Request.parse(t, 3);
    if (r == null) {
      s.line(BAD_FORMAT);
      return;
    }
    ItemStore.Mode mode =
        switch (r.has('M') ? r.token('M') : "S") {
          case "S", "s" -> ItemStore.Mode.SET;
          case "E", "e" -> ItemStore.Mode.ADD;
          case "A", "a" -> ItemStore.Mode.APPEND;
          case "P", "p" -> ItemStore.Mode.PREPEND;
          case "R", "r" -> ItemStore.Mode.REPLACE;
          default -> null;
        };
    if (mode == null) {
      s.line("CLIENT_ERROR invalid mode for ms STORE");
      return;
    }
    long flags = r.has('F') ? MemcacheSession.unsigned(bytes(r.token('F')), 0xFFFF_FFFFL) : 0;
    long ttl = r.has('T') ? MemcacheSession.signed(bytes(r.token('T'))) : 0;
    Long cas = r.has('C') ? MemcacheSession.unsigned64(bytes(r.token('C'))) : Long.valueOf(0);
    if (flags < 0 || ttl == Long.MIN_VALUE || cas == null) {
      s.line("CLIENT_ERROR bad token in command line format");
      return;
    }
    s.stats.cmdSet.increment();
    if (s.server.outOfMemory()) {
      s.line("SERVER_ERROR out of memory storing object");
      return;
    }
    ItemStore.Result result =
        ItemStore.store(
            s,
            r.key(),
            mode,
            (int) flags,
            s.expiryMillis(ttl),
            data,
            r.has('C') && cas == 0 ? -1 : cas);
    String status =
        switch (result.outcome()) {
          case STORED -> "HD";
          case EXISTS -> "EX";
          case NOT_FOUND -> "NF";
          default -> "NS";
        };
    if (!(status.equals("HD") && r.has('q'))) {
      s.line(status + returned(s, r, result.item()));
    }
  }

  private static void md(MemcacheSession s, List<byte[]> t, byte[] data) {
    Request r = Request.parse(t, 2);
    if (r == null) {
      s.line(BAD_FORMAT);
      return;
    }
    Long cas = r.has('C') ? MemcacheSession.unsigned64(bytes(r.token('C'))) : Long.valueOf(0);
    if (cas == null) {
      s.line("CLIENT_ERROR bad token in command line format");
      return;
    }
    ItemStore.Outcome o = ItemStore.delete(s, r.key(), r.has('C') && cas == 0 ? -1 : cas);
    String status =
        switch (o) {
          case STORED -> "HD";
          case EXISTS -> "EX";
          default -> "NF";
        };
    if (!(r.has('q') && (status.equals("HD") || status.equals("NF")))) {
      s.line(status + returned(s, r, null));
    }
  }

  private static void ma(MemcacheSession s, List<byte[]> t, byte[] data) {
    Request r = Request.parse(t, 2);
    if (r == null) {
      s.line(BAD_FORMAT);
      return;
    }
    String m = r.has('M') ? r.token('M') : "I";
    boolean incr = m.equals("I") || m.equals("i") || m.equals("+");
    boolean decr = m.equals("D") || m.equals("d") || m.equals("-");
    Long delta = r.has('D') ? MemcacheSession.unsigned64(bytes(r.token('D'))) : Long.valueOf(1);
    Long initial = r.has('J') ? MemcacheSession.unsigned64(bytes(r.token('J'))) : Long.valueOf(0);
    long vivifyTtl = r.has('N') ? MemcacheSession.signed(bytes(r.token('N'))) : 0;
    Long cas = r.has('C') ? MemcacheSession.unsigned64(bytes(r.token('C'))) : Long.valueOf(0);
    if (!(incr || decr)
        || delta == null
        || initial == null
        || vivifyTtl == Long.MIN_VALUE
        || cas == null) {
      s.line(
          incr || decr
              ? "CLIENT_ERROR bad token in command line format"
              : "CLIENT_ERROR invalid mode for ma MODE");
      return;
    }
    StoredValue vivify =
        r.has('N')
            ? new StoredValue(
                ValueType.STRING,
                0,
                s.expiryMillis(vivifyTtl),
                0,
                Long.toUnsignedString(initial).getBytes(StandardCharsets.US_ASCII))
            : null;
    ItemStore.Result result =
        ItemStore.arithmetic(s, r.key(), delta, incr, vivify, r.has('C') && cas == 0 ? -1 : cas);
    StoredValue v = result.item();
    if (v != null && r.has('T')) {
      long ttl = MemcacheSession.signed(bytes(r.token('T')));
      v = ttl == Long.MIN_VALUE ? v : ItemStore.touch(s, r.key(), s.expiryMillis(ttl));
    }
    switch (result.outcome()) {
      case STORED -> {
        if (r.has('v') && v != null) {
          s.line("VA " + v.payload().length + returned(s, r, v));
          s.data(v.payload());
        } else if (!r.has('q')) {
          s.line("HD" + returned(s, r, v));
        }
      }
      case NON_NUMERIC -> s.line("CLIENT_ERROR cannot increment or decrement non-numeric value");
      case EXISTS -> s.line("EX" + returned(s, r, null));
      default -> {
        if (!r.has('q')) {
          s.line("NF" + returned(s, r, null));
        }
      }
    }
  }

  private static void me(MemcacheSession s, List<byte[]> t, byte[] data) {
    Request r = Request.parse(t, 2);
    if (r == null || t.size() > 3) {
      s.line(BAD_FORMAT);
      return;
    }
    StoredValue v = s.keyspace().peek(MemcacheSession.DB, r.key());
    if (v == null || v.type() != ValueType.STRING) {
      s.line("EN");
      return;
    }
    s.out.writeCharSequence("ME ", StandardCharsets.ISO_8859_1);
    s.out.writeBytes(r.rawKey());
    s.line(
        " exp="
            + s.ttlSeconds(v)
            + " la=0 cas="
            + v.version()
            + " fetch=no cls=1 size="
            + v.payload().length);
  }

  private static byte[] bytes(String token) {
    return token.getBytes(StandardCharsets.ISO_8859_1);
  }
}
