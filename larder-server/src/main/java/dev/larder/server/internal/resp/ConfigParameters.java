package dev.larder.server.internal.resp;

import dev.larder.server.ServerSetting;
import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.pubsub.KeyspaceEvents;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The parameters CONFIG GET reports and CONFIG SET changes, each declared once with Redis 7.0's
 * name (and old alias), its kind and what setting it does. Three kinds:
 *
 * <ul>
 *   <li><b>live</b>: Larder applies them (maxmemory, maxmemory-policy), or stores them for the part
 *       of the server that acts on them (notify-keyspace-events);
 *   <li><b>fixed</b>: read from the server's settings or Larder's design (port, databases,
 *       appendonly, timeout...); CONFIG SET refuses them with Redis's message for an immutable
 *       parameter, since changing them needs a restart with another setting;
 *   <li><b>kept</b>: tuning knobs of Redis's own machinery that Larder does not have (save, hz, the
 *       lazyfree and encoding thresholds, LFU tuning...): checked as Redis checks them, stored and
 *       reported, without other effect, so that tools and test suites that set them go on. The
 *       encoding thresholds feed OBJECT ENCODING's answer.
 * </ul>
 *
 * <p>Stateless; the values live in {@link ServerState}.
 */
final class ConfigParameters {
  /** Every parameter, by name, in the order CONFIG GET lists them. */
  static final Map<String, Parameter> ALL = declare();

  private ConfigParameters() {}

  /**
   * One parameter.
   *
   * @param name Redis's name
   * @param alias its older name, or null
   * @param get its current value
   * @param check validates a new value and returns what to store and apply, or throws the message
   *     that follows Redis's "possibly related to argument" prefix; null for a fixed parameter
   * @param apply applies a checked value
   */
  record Parameter(
      String name,
      String alias,
      Function<ServerState, String> get,
      Function<String, String> check,
      Apply apply) {}

  /** Applies a checked value. */
  @FunctionalInterface
  interface Apply {
    /**
     * Applies the value to the server.
     *
     * @param state the server
     * @param value a value its check accepted
     */
    void apply(ServerState state, String value);
  }

  /** A check's refusal: the text after Redis's prefix. */
  static final class Refusal extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refusal(String reason) {
      super(reason, null, false, false);
    }
  }

  private static Map<String, Parameter> declare() {
    List<Parameter> p = new ArrayList<>();
    p.add(
        new Parameter(
            "maxmemory",
            null,
            s -> Long.toString(s.keyspace().maxMemory()),
            ConfigParameters::maxMemory,
            (s, v) -> {
              long bytes = Long.parseLong(v);
              if (bytes != s.keyspace().maxMemory()) {
                s.keyspace().resize(bytes);
              }
            }));
    p.add(
        new Parameter(
            "maxmemory-policy",
            null,
            ServerState::maxMemoryPolicy,
            v -> {
              String policy = v.toLowerCase(Locale.ROOT);
              if (!Set.of("allkeys-lfu", "noeviction").contains(policy)) {
                throw new Refusal(
                    "argument(s) must be one of the following: allkeys-lfu, noeviction");
              }
              return policy;
            },
            ServerState::maxMemoryPolicy));
    p.add(
        new Parameter(
            "notify-keyspace-events",
            null,
            s -> s.keyspaceEvents().get(),
            v -> {
              try {
                KeyspaceEvents.parse(v);
              } catch (IllegalArgumentException e) {
                throw new Refusal(e.getMessage());
              }
              return v;
            },
            (s, v) -> s.keyspaceEvents().set(v)));
    p.add(
        new Parameter(
            "tracking-table-max-keys",
            null,
            s -> Long.toString(s.tracking().maxKeys()),
            v -> {
              long n;
              try {
                n = Long.parseLong(v);
              } catch (NumberFormatException e) {
                n = -1;
              }
              if (n < 0) {
                throw new Refusal("argument couldn't be parsed into an integer");
              }
              return Long.toString(n);
            },
            (s, v) -> s.tracking().maxKeys(Long.parseLong(v))));
    fixed(p, "bind", s -> s.config().bind());
    fixed(p, "port", s -> Integer.toString(s.respPort()));
    fixed(p, "databases", s -> Integer.toString(Keyspace.DATABASES));
    fixed(p, "maxclients", s -> Integer.toString(s.config().maxConnections()));
    fixed(p, "timeout", s -> Integer.toString(s.config().idleTimeoutSeconds()));
    fixed(p, "proto-max-bulk-len", s -> Integer.toString(s.config().maxRequestBytes()));
    fixed(p, "appendonly", s -> s.log() == null && s.loading() == null ? "no" : "yes");
    fixed(p, "appendfsync", s -> s.config().appendfsync());
    fixed(p, "dir", ConfigParameters::logDirectory);
    fixed(p, "maxmemory-clients", s -> Long.toString(s.clientMemory().budget()));
    fixed(p, "cluster-enabled", s -> s.cluster() == null ? "no" : "yes");
    fixed(p, "daemonize", s -> "no");
    p.add(kept("save", null, "", ConfigParameters::save));
    p.add(
        kept(
            "hz",
            null,
            "10",
            v -> Long.toString(Math.clamp(integer(v, 0, Integer.MAX_VALUE), 1, 500))));
    p.add(kept("loglevel", null, "notice", oneOf("debug", "verbose", "notice", "warning")));
    p.add(kept("maxmemory-samples", null, "5", v -> range(v, 1, Integer.MAX_VALUE)));
    p.add(kept("lfu-log-factor", null, "10", v -> range(v, 0, Integer.MAX_VALUE)));
    p.add(kept("lfu-decay-time", null, "1", v -> range(v, 0, Integer.MAX_VALUE)));
    for (String lazy :
        List.of(
            "lazyfree-lazy-eviction",
            "lazyfree-lazy-expire",
            "lazyfree-lazy-server-del",
            "lazyfree-lazy-user-del",
            "lazyfree-lazy-user-flush",
            "activedefrag")) {
      p.add(kept(lazy, null, "no", ConfigParameters::yesNo));
    }
    p.add(kept("latency-tracking", null, "yes", ConfigParameters::yesNo));
    p.add(kept("slowlog-log-slower-than", null, "10000", v -> range(v, -1, Long.MAX_VALUE)));
    p.add(kept("slowlog-max-len", null, "128", v -> range(v, 0, Long.MAX_VALUE)));
    p.add(
        kept(
            "hash-max-listpack-entries",
            "hash-max-ziplist-entries",
            "512",
            v -> range(v, 0, Long.MAX_VALUE)));
    p.add(
        kept("hash-max-listpack-value", "hash-max-ziplist-value", "64", ConfigParameters::memory));
    p.add(kept("set-max-intset-entries", null, "512", v -> range(v, 0, Long.MAX_VALUE)));
    p.add(
        kept(
            "zset-max-listpack-entries",
            "zset-max-ziplist-entries",
            "128",
            v -> range(v, 0, Long.MAX_VALUE)));
    p.add(
        kept("zset-max-listpack-value", "zset-max-ziplist-value", "64", ConfigParameters::memory));
    p.add(
        kept(
            "list-max-listpack-size",
            "list-max-ziplist-size",
            "-2",
            v -> range(v, Integer.MIN_VALUE, Integer.MAX_VALUE)));
    p.add(kept("list-compress-depth", null, "0", v -> range(v, 0, Integer.MAX_VALUE)));
    Map<String, Parameter> all = new LinkedHashMap<>();
    p.forEach(x -> all.put(x.name(), x));
    return java.util.Collections.unmodifiableMap(all);
  }

  private static void fixed(List<Parameter> p, String name, Function<ServerState, String> get) {
    p.add(new Parameter(name, null, get, null, null));
  }

  private static Parameter kept(
      String name, String alias, String initial, Function<String, String> check) {
    return new Parameter(
        name,
        alias,
        s -> s.keptParameters().getOrDefault(name, initial),
        check,
        (s, v) -> s.keptParameters().put(name, v));
  }

  /**
   * Returns the parameter of that name or alias, or null.
   *
   * @param name a name in lower case
   */
  static Parameter byName(String name) {
    Parameter p = ALL.get(name);
    if (p != null) {
      return p;
    }
    for (Parameter q : ALL.values()) {
      if (name.equals(q.alias())) {
        return q;
      }
    }
    return null;
  }

  /**
   * Returns a kept parameter's current value as a long.
   *
   * @param s the server
   * @param name a kept numeric parameter's name
   */
  static long number(ServerState s, String name) {
    return Long.parseLong(ALL.get(name).get().apply(s));
  }

  private static String maxMemory(String v) {
    long bytes;
    try {
      bytes = ServerSetting.parseBytes(v);
    } catch (IllegalArgumentException e) {
      throw new Refusal("argument must be a memory value");
    }
    if (bytes < 1 << 20) {
      throw new Refusal("argument must be a memory value of at least 1mb");
    }
    return Long.toString(bytes);
  }

  private static String memory(String v) {
    try {
      return Long.toString(ServerSetting.parseBytes(v));
    } catch (IllegalArgumentException e) {
      throw new Refusal("argument must be a memory value");
    }
  }

  private static long integer(String v, long min, long max) {
    long n;
    try {
      n = RespCall.parseLong(v.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    } catch (RespError e) {
      throw new Refusal("argument couldn't be parsed into an integer");
    }
    if (n < min || n > max) {
      throw new Refusal("argument must be between " + min + " and " + max + " inclusive");
    }
    return n;
  }

  private static String range(String v, long min, long max) {
    return Long.toString(integer(v, min, max));
  }

  private static String yesNo(String v) {
    String t = v.toLowerCase(Locale.ROOT);
    if (!t.equals("yes") && !t.equals("no")) {
      throw new Refusal("argument must be 'yes' or 'no'");
    }
    return t;
  }

  private static Function<String, String> oneOf(String... values) {
    return v -> {
      String t = v.toLowerCase(Locale.ROOT);
      if (!List.of(values).contains(t)) {
        throw new Refusal("argument(s) must be one of the following: " + String.join(", ", values));
      }
      return t;
    };
  }

  /** Redis's save: pairs of seconds and changes, or empty. */
  private static String save(String v) {
    String[] words = v.trim().isEmpty() ? new String[0] : v.trim().split("\\s+");
    if (words.length % 2 != 0) {
      throw new Refusal("Invalid save parameters");
    }
    for (String w : words) {
      try {
        if (Long.parseLong(w) < 0) {
          throw new Refusal("Invalid save parameters");
        }
      } catch (NumberFormatException e) {
        throw new Refusal("Invalid save parameters");
      }
    }
    return String.join(" ", words);
  }

  /** CONFIG GET dir: the log's directory, also while it loads; empty without a log. */
  private static String logDirectory(ServerState s) {
    if (s.log() != null) {
      return s.log().directory().toAbsolutePath().toString();
    }
    return s.loading() != null ? s.config().dir().toAbsolutePath().toString() : "";
  }
}
