package dev.larder.server.internal.resp;

import java.util.Collection;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The RESP command table: every command is one {@link RespCommand} registered here by its group's
 * class ({@link StringCommands}, {@link KeyCommands}, {@link HashCommands}, {@link ListCommands},
 * {@link BlockingListCommands}, {@link SetCommands}, {@link ZSetCommands}, {@link
 * ConnectionCommands}, {@link ServerCommands}, {@link TransactionCommands}, {@link AclCommands},
 * {@link ClusterCommands}, {@link PubSubCommands}, {@link SortCommand}).
 *
 * <p>Built once, then read-only and thread-safe.
 */
public final class RespCommandTable {
  private final Map<String, RespCommand> commands = new TreeMap<>();

  private RespCommandTable() {}

  /** Returns the table of every command Larder speaks. */
  public static RespCommandTable standard() {
    RespCommandTable table = new RespCommandTable();
    StringCommands.register(table);
    BitCommands.register(table);
    BitfieldCommand.register(table);
    LcsCommand.register(table);
    KeyCommands.register(table);
    KeyTransferCommands.register(table);
    DumpCommands.register(table);
    ObjectCommands.register(table);
    HashCommands.register(table);
    HashFieldCommands.register(table);
    ListCommands.register(table);
    BlockingListCommands.register(table);
    SetCommands.register(table);
    ZSetCommands.register(table);
    BlockingZSetCommands.register(table);
    ConnectionCommands.register(table);
    ServerCommands.register(table);
    TransactionCommands.register(table);
    PersistenceCommands.register(table);
    AclCommands.register(table);
    ClusterCommands.register(table);
    PubSubCommands.register(table);
    SortCommand.register(table);
    return table;
  }

  /**
   * Returns its entry or null.
   *
   * @param name a command name, any case
   */
  public RespCommand get(String name) {
    return commands.get(name.toLowerCase(Locale.ROOT));
  }

  /** Returns every entry, by name. */
  public Collection<RespCommand> all() {
    return commands.values();
  }

  /** A fluent registration of one command. */
  final class Entry {
    private final String name;
    private final int arity;
    private final EnumSet<RespCommand.Flag> flags = EnumSet.noneOf(RespCommand.Flag.class);
    private int firstKey;
    private int lastKey;
    private int step;
    private int numkeysAt;
    private RespCommand.OptionKey optionKey;
    private String group;
    private String summary = "";
    private String arguments = "";

    private Entry(String name, int arity) {
      this.name = name;
      this.arity = arity;
    }

    Entry flags(RespCommand.Flag... f) {
      flags.addAll(java.util.List.of(f));
      return this;
    }

    Entry keys(int first, int last, int stepBy) {
      this.firstKey = first;
      this.lastKey = last;
      this.step = stepBy;
      return this;
    }

    /**
     * Declares the argument at {@code at} as the count of the keys that follow it (ZUNION's
     * numkeys); any fixed range declared by {@link #keys} lies before it.
     */
    Entry countedKeys(int at) {
      this.numkeysAt = at;
      flags.add(RespCommand.Flag.MOVABLE_KEYS);
      return this;
    }

    /**
     * Declares a key that an option word names, after the fixed range (SORT's STORE destination).
     */
    Entry optionKey(RespCommand.OptionKey finder) {
      this.optionKey = finder;
      flags.add(RespCommand.Flag.MOVABLE_KEYS);
      return this;
    }

    Entry doc(String groupName, String line, String args) {
      this.group = groupName;
      this.summary = line;
      this.arguments = args;
      return this;
    }

    void run(RespCommand.Action action) {
      if (commands.put(
              name,
              new RespCommand(
                  name,
                  arity,
                  flags,
                  firstKey,
                  lastKey,
                  step,
                  numkeysAt,
                  optionKey,
                  group,
                  summary,
                  arguments,
                  action,
                  new CommandStats()))
          != null) {
        throw new IllegalStateException("command registered twice: " + name);
      }
    }
  }

  Entry command(String name, int arity) {
    return new Entry(name, arity);
  }
}
