package dev.larder.client.internal;

import java.io.ByteArrayOutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import redis.clients.jedis.Builder;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.args.RawableFactory;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.csc.CacheKey;

/**
 * Turns a Jedis {@link CacheKey} into the bytes the near cache is keyed by, names the Redis keys it
 * reads, and rebuilds an equal {@link CacheKey} from those bytes.
 *
 * <p>Implementation notes. Jedis keys its cache by the command object: two keys are equal when the
 * command's arguments are equal one by one and their reply builders are the same object (GET with a
 * String key builds a String, with a byte[] key a byte[]: the same bytes on the wire, two entries).
 * Arguments are equal when of the same class and bytes ({@code Raw}, or {@code RawString} for an
 * argument given as a String), or the same constant (the command itself, and keywords such as
 * {@code WITHSCORES}, are enum constants). The bytes here carry the arguments' bytes and a number
 * for the command's <i>form</i>: its builder, each argument's kind (Raw, RawString, or the constant
 * itself) and which arguments are its Redis keys (and whether each was given as a String or a
 * byte[]):
 *
 * <pre>
 *   varint form id      (this cache's number for the form, given on first sight)
 *   varint argument count
 *   per argument: varint length, its bytes (the first argument is the command's name)
 * </pre>
 *
 * So an entry's key can be turned back into a {@link CacheKey} equal to the one it was stored under
 * ({@link #decode}), which is how the cache lists its entries. A command with an argument of
 * another kind (a Rawable that is neither Raw nor an enum constant) or a key of another type gets
 * no form and is not cached.
 *
 * <p>{@code CacheKey} does not expose its command, so it is read from the key's private field
 * through a private lookup: Jedis is an automatic module (or on the class path), and both open
 * every package. A Jedis without that field fails when the cache is built, naming it.
 *
 * <p>Builders and call sites are few, so the table of forms stays small: each builder remembers its
 * last form, which a command of the same shape matches without allocating. A client that makes a
 * new builder for every call would grow the table without end, so past {@link #MAX_FORMS} forms,
 * new ones get no id and their commands are not cached (reads go to the server). Thread-safe.
 */
public final class CommandKeys {
  /** The most forms given an id; commands of other forms are not cached. */
  static final int MAX_FORMS = 4096;

  private static final VarHandle COMMAND = commandField();

  /** The kind of a Raw argument in a form (a String's RawString is {@link #TEXT}). */
  private static final Object BYTES = new Object();

  private static final Object TEXT = new Object();

  private final ConcurrentHashMap<Form, Integer> formIds = new ConcurrentHashMap<>();
  private final CopyOnWriteArrayList<Form> forms = new CopyOnWriteArrayList<>();
  private final ConcurrentHashMap<Builder<?>, Form> lastForm = new ConcurrentHashMap<>();

  /**
   * A command's form: what its encoded bytes leave out.
   *
   * @param builder the reply's builder (compared by identity, as Jedis compares it)
   * @param kinds each argument's kind: {@link #BYTES}, {@link #TEXT}, or the constant itself
   * @param keyAt the position of each Redis key among the arguments, in the command's key order
   * @param id this form's number, -1 until numbered (not compared)
   */
  private record Form(Builder<?> builder, List<Object> kinds, List<Integer> keyAt, int id) {
    @Override
    @SuppressWarnings("ReferenceEquality") // Jedis compares builders by identity
    public boolean equals(Object o) {
      return o instanceof Form f
          && f.builder == builder
          && f.kinds.equals(kinds)
          && f.keyAt.equals(keyAt);
    }

    @Override
    public int hashCode() {
      return (System.identityHashCode(builder) * 31 + kinds.hashCode()) * 31 + keyAt.hashCode();
    }

    /** Whether the command has this form, checked without allocating. */
    @SuppressWarnings("ReferenceEquality") // kinds are markers and constants, equal by identity
    boolean matches(CommandArguments args) {
      if (args.size() != kinds.size() || args.getKeys().size() != keyAt.size()) {
        return false;
      }
      for (int i = 0; i < kinds.size(); i++) {
        if (kinds.get(i) != kindOf(args.get(i))) {
          return false;
        }
      }
      List<Object> keys = args.getKeys();
      for (int k = 0; k < keyAt.size(); k++) {
        if (!isKeyAt(args, keyAt.get(k), keys.get(k))) {
          return false;
        }
      }
      return true;
    }
  }

  private static VarHandle commandField() {
    try {
      return MethodHandles.privateLookupIn(CacheKey.class, MethodHandles.lookup())
          .findVarHandle(CacheKey.class, "command", CommandObject.class);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "this Jedis's CacheKey has no readable field 'command' (larder-client is built for Jedis"
              + " 7.2): "
              + e,
          e);
    }
  }

  /**
   * Returns the key's bytes, or null if the command has no form (see the class comment) or its form
   * gets no id (past {@link #MAX_FORMS}).
   *
   * @param key a Jedis cache key
   */
  public byte[] encode(CacheKey<?> key) {
    CommandObject<?> command = (CommandObject<?>) COMMAND.get(key);
    Form form = formOf(command);
    if (form == null) {
      return null;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    Varint.write(out, form.id());
    Varint.write(out, command.getArguments().size());
    for (Rawable argument : command.getArguments()) {
      byte[] raw = argument.getRaw();
      Varint.write(out, raw.length);
      out.write(raw, 0, raw.length);
    }
    return out.toByteArray();
  }

  /**
   * Rebuilds the cache key that {@link #encode} turned into these bytes: equal to it, with the same
   * builder, arguments and Redis keys (each a String or byte[] as it was given).
   *
   * @param encoded bytes {@link #encode} returned
   * @throws IllegalArgumentException if they are not such bytes
   */
  public CacheKey<?> decode(byte[] encoded) {
    ByteBuffer in = ByteBuffer.wrap(encoded);
    int id = (int) Varint.read(in);
    if (id < 0 || id >= forms.size()) {
      throw new IllegalArgumentException("no form numbered " + id);
    }
    Form form = forms.get(id);
    int n = (int) Varint.read(in);
    skip(in);
    CommandArguments args = new CommandArguments((ProtocolCommand) form.kinds().getFirst());
    for (int i = 1; i < n; i++) {
      byte[] raw = new byte[(int) Varint.read(in)];
      in.get(raw);
      Object kind = form.kinds().get(i);
      boolean text = kind == TEXT;
      if (form.keyAt().contains(i)) {
        args.key(text ? new String(raw, StandardCharsets.UTF_8) : raw);
      } else if (text) {
        args.add(new String(raw, StandardCharsets.UTF_8));
      } else if (kind == BYTES) {
        args.add(raw);
      } else {
        args.add((Rawable) kind);
      }
    }
    return newKey(args, form.builder());
  }

  @SuppressWarnings({"unchecked", "rawtypes"}) // the builder's type is the key's, as at encode
  private static CacheKey<?> newKey(CommandArguments args, Builder<?> builder) {
    return new CacheKey(new CommandObject(args, builder));
  }

  private static void skip(ByteBuffer in) {
    int length = (int) Varint.read(in);
    in.position(in.position() + length);
  }

  private Form formOf(CommandObject<?> command) {
    Builder<?> builder = command.getBuilder();
    CommandArguments args = command.getArguments();
    Form last = lastForm.get(builder);
    if (last != null && last.matches(args)) {
      return last;
    }
    Form form = newForm(builder, args);
    if (form == null) {
      return null;
    }
    Integer id = formIds.get(form);
    if (id == null) {
      if (formIds.size() >= MAX_FORMS) {
        return null;
      }
      synchronized (formIds) {
        id = formIds.get(form);
        if (id == null && formIds.size() < MAX_FORMS) {
          id = forms.size();
          form = new Form(builder, form.kinds(), form.keyAt(), id);
          forms.add(form);
          formIds.put(form, id);
        }
      }
      if (id == null) {
        return null;
      }
    }
    Form numbered = forms.get(id);
    lastForm.put(builder, numbered);
    return numbered;
  }

  /** The command's form, unnumbered, or null if it has an argument or key of another kind. */
  private static Form newForm(Builder<?> builder, CommandArguments args) {
    List<Object> kinds = new ArrayList<>(args.size());
    for (Rawable argument : args) {
      Object kind = kindOf(argument);
      if (kind == null) {
        return null;
      }
      kinds.add(kind);
    }
    if (!(kinds.getFirst() instanceof ProtocolCommand)) {
      return null;
    }
    List<Integer> keyAt = new ArrayList<>();
    int from = 1;
    for (Object key : args.getKeys()) {
      int at = from;
      while (at < args.size() && !isKeyAt(args, at, key)) {
        at++;
      }
      if (at >= args.size()) {
        return null;
      }
      keyAt.add(at);
      from = at + 1;
    }
    return new Form(builder, List.copyOf(kinds), List.copyOf(keyAt), -1);
  }

  /** An argument's kind in a form, or null if it is of none. */
  private static Object kindOf(Rawable argument) {
    if (argument.getClass() == RawableFactory.RawString.class) {
      return TEXT;
    }
    if (argument.getClass() == RawableFactory.Raw.class) {
      return BYTES;
    }
    return argument instanceof Enum<?> ? argument : null;
  }

  /**
   * Whether the argument at {@code at} is what {@code key} adds: a RawString of a String key's
   * bytes, a Raw of a byte[] key's.
   */
  private static boolean isKeyAt(CommandArguments args, int at, Object key) {
    Rawable argument = args.get(at);
    return switch (key) {
      case String s ->
          argument.getClass() == RawableFactory.RawString.class
              && Arrays.equals(argument.getRaw(), s.getBytes(StandardCharsets.UTF_8));
      case byte[] b ->
          argument.getClass() == RawableFactory.Raw.class && Arrays.equals(argument.getRaw(), b);
      case null, default -> false;
    };
  }

  /**
   * Returns the bytes of each Redis key the command reads, as the server names them in invalidation
   * messages, or null if a key is of a type other than String or byte[] (such a command is not
   * cached).
   *
   * @param redisKeys the keys of {@link CacheKey#getRedisKeys()}
   */
  public static byte[][] redisKeyBytes(List<?> redisKeys) {
    byte[][] keys = new byte[redisKeys.size()][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = redisKeyBytes(redisKeys.get(i));
      if (keys[i] == null) {
        return null;
      }
    }
    return keys;
  }

  /**
   * Returns a Redis key's bytes: a byte[] as it is, a String in UTF-8 (as Jedis sends it), anything
   * else null.
   */
  public static byte[] redisKeyBytes(Object redisKey) {
    return switch (redisKey) {
      case byte[] b -> b;
      case String s -> s.getBytes(StandardCharsets.UTF_8);
      case null, default -> null;
    };
  }
}
