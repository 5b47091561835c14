package dev.larder.server.internal.pubsub;

import static dev.larder.server.internal.keyspace.KeyObserver.CREATED;
import static dev.larder.server.internal.keyspace.KeyObserver.EXPIRY_CLEARED;
import static dev.larder.server.internal.keyspace.KeyObserver.EXPIRY_SET;
import static dev.larder.server.internal.keyspace.KeyObserver.REMOVED;

/**
 * Which keyspace events a command's change of a key publishes, with Redis 7's names and classes.
 *
 * <p>The rule for most commands: the command's event (its name, or the name Redis uses for it:
 * {@code set} for SETNX, SETEX, MSET, GETSET; {@code incrby} for INCR, DECR, DECRBY; {@code hset}
 * for HSETNX and HMSET) in its group's class, then {@code expire} if SET, SETEX or PSETEX gave the
 * key a deadline, then {@code del} if the change removed the key (a hash's last field deleted).
 * Commands whose events depend on what they did are listed: DEL, UNLINK, GETDEL (del), the EXPIRE
 * family (expire, or del for a deadline in the past), PERSIST and GETEX (expire, persist), RENAME
 * (rename_from, rename_to), MOVE (move_from, move_to), COPY (copy_to), RESTORE (restore), SORT's
 * STORE (sortstore in the list class, or del when the result is empty). New commands of other
 * groups (lists, sets, sorted sets) get the rule with their own name and class unless listed here,
 * or unless the command named the event of the change itself ({@link KeyEvents#nameEvents}: the
 * pops and pushes of BLPOP, LMPOP, LMOVE, ZMPOP and their kin). A change that made its key
 * publishes {@code new} (class n) before all of these, as Redis does where it adds the key.
 *
 * <p>Stateless.
 */
final class CommandEvents {
  private CommandEvents() {}

  /**
   * Publishes the events of one change.
   *
   * @param events the publisher
   * @param command the command's lower-case name
   * @param group its group
   * @param event the event the command named for this change, or null for the rule
   * @param db the key's database
   * @param key the key
   * @param how KeyObserver's flags for the change
   */
  static void publish(
      KeyspaceEvents events,
      String command,
      String group,
      String event,
      int db,
      byte[] key,
      int how) {
    int g = KeyspaceEvents.GENERIC;
    boolean removed = (how & REMOVED) != 0;
    if ((how & CREATED) != 0 && !removed) {
      events.notify(KeyspaceEvents.NEW, "new", db, key);
    }
    switch (command) {
      case "del", "unlink", "getdel" -> {
        if (removed) {
          events.notify(g, "del", db, key);
        }
      }
      case "expire", "pexpire", "expireat", "pexpireat" -> {
        if (removed) {
          events.notify(g, "del", db, key);
        } else if ((how & EXPIRY_SET) != 0) {
          events.notify(g, "expire", db, key);
        }
      }
      case "persist", "getex" -> {
        if ((how & EXPIRY_SET) != 0) {
          events.notify(g, "expire", db, key);
        } else if ((how & EXPIRY_CLEARED) != 0) {
          events.notify(g, "persist", db, key);
        } else if (removed) {
          events.notify(g, "del", db, key);
        }
      }
      case "rename", "renamenx" -> events.notify(g, removed ? "rename_from" : "rename_to", db, key);
      case "move" -> events.notify(g, removed ? "move_from" : "move_to", db, key);
      case "copy" -> events.notify(g, "copy_to", db, key);
      // A deadline already past: REPLACE removed the old value and stored nothing, as a DEL.
      case "restore" -> events.notify(g, removed ? "del" : "restore", db, key);
      case "sort" -> {
        if (removed) {
          events.notify(g, "del", db, key);
        } else {
          events.notify(KeyspaceEvents.LIST, "sortstore", db, key);
        }
      }
      default -> {
        events.notify(classOf(group), event == null ? eventOf(command) : event, db, key);
        if ((how & EXPIRY_SET) != 0
            && (command.equals("set") || command.equals("setex") || command.equals("psetex"))) {
          events.notify(g, "expire", db, key);
        }
        if (removed) {
          events.notify(g, "del", db, key);
        }
      }
    }
  }

  /**
   * Returns whether the command's removal of its source key is published before its write of the
   * destination, whatever order it made them in (RENAME, RENAMENX, MOVE).
   *
   * @param command a lower-case command name
   */
  static boolean sourceFirst(String command) {
    return command.equals("rename") || command.equals("renamenx") || command.equals("move");
  }

  /**
   * Returns whether the command's pushes are published before its pops, whatever order it made them
   * in (LMOVE, RPOPLPUSH and their blocking forms: Redis tells of the destination first).
   *
   * @param command a lower-case command name
   */
  static boolean pushFirst(String command) {
    return switch (command) {
      case "lmove", "rpoplpush", "blmove", "brpoplpush" -> true;
      default -> false;
    };
  }

  /**
   * Returns whether the command tells of its last change of each key only: RESTORE, which may
   * change a key several times (the old value removed, a large collection written, its expiry set)
   * where Redis makes one change and publishes one event.
   *
   * @param command a lower-case command name
   */
  static boolean lastChangeOnly(String command) {
    return command.equals("restore");
  }

  /** Returns whether a change was named a push ({@code lpush} or {@code rpush}). */
  static boolean isPush(KeyEvents.Change change) {
    return "lpush".equals(change.event()) || "rpush".equals(change.event());
  }

  private static String eventOf(String command) {
    return switch (command) {
      case "setnx", "setex", "psetex", "mset", "msetnx", "getset" -> "set";
      case "incr", "decr", "decrby" -> "incrby";
      case "hsetnx", "hmset" -> "hset";
      default -> command;
    };
  }

  private static int classOf(String group) {
    return switch (group == null ? "" : group) {
      case "string" -> KeyspaceEvents.STRING;
      case "hash" -> KeyspaceEvents.HASH;
      case "list" -> KeyspaceEvents.LIST;
      case "set" -> KeyspaceEvents.SET;
      case "sorted-set", "sorted_set", "zset" -> KeyspaceEvents.ZSET;
      case "stream" -> KeyspaceEvents.STREAM;
      default -> KeyspaceEvents.GENERIC;
    };
  }
}
