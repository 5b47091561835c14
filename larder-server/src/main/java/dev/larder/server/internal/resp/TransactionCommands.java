package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.NO_MULTI;

import dev.larder.server.internal.keyspace.StoredValue;
import java.util.ArrayList;
import java.util.List;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH, with Redis's semantics: commands are queued (an unknown
 * command or a wrong arity while queueing makes EXEC answer EXECABORT), EXEC runs them all under
 * the keyspace's exclusive lock so that no other command interleaves, errors of single commands at
 * run time do not stop the others, and EXEC answers a null array if a watched key changed (its
 * version differs) since WATCH. Larder's own transactions module is not used yet.
 */
final class TransactionCommands {
  private TransactionCommands() {}

  static void register(RespCommandTable t) {
    t.command("multi", 1)
        .flags(FAST, NO_MULTI)
        .doc("transactions", "Starts a transaction.", "")
        .run(
            c -> {
              if (c.session.inMulti()) {
                throw new RespError("ERR MULTI calls can not be nested");
              }
              c.session.queued = new ArrayList<>();
              c.out().ok();
            });
    t.command("exec", 1)
        .flags(NO_MULTI, EXCLUSIVE)
        .doc("transactions", "Executes all commands in a transaction.", "")
        .run(TransactionCommands::exec);
    t.command("discard", 1)
        .flags(FAST, NO_MULTI)
        .doc("transactions", "Discards a transaction.", "")
        .run(
            c -> {
              if (!c.session.inMulti()) {
                throw new RespError("ERR DISCARD without MULTI");
              }
              c.session.endTransaction();
              c.out().ok();
            });
    t.command("watch", -2)
        .flags(FAST, NO_MULTI)
        .keys(1, -1, 1)
        .doc(
            "transactions",
            "Monitors changes to keys to determine the execution of a" + " transaction.",
            "key:key*")
        .run(TransactionCommands::watch);
    t.command("unwatch", 1)
        .flags(FAST, NO_MULTI)
        .doc("transactions", "Forgets about watched keys of a transaction.", "")
        .run(
            c -> {
              c.session.watched.clear();
              c.out().ok();
            });
  }

  private static void watch(RespCall c) {
    if (c.session.inMulti()) {
      throw new RespError("ERR WATCH inside MULTI is not allowed");
    }
    for (int i = 1; i < c.argc(); i++) {
      StoredValue v = c.keyspace().peek(c.db(), c.arg(i));
      c.session.watched.add(new RespSession.Watch(c.db(), c.arg(i), v == null ? 0 : v.version()));
    }
    c.out().ok();
  }

  private static void exec(RespCall c) {
    RespSession s = c.session;
    if (!s.inMulti()) {
      throw new RespError("ERR EXEC without MULTI");
    }
    List<RespFrame.Command> queued = s.queued;
    boolean failed = s.queueFailed;
    boolean changed = watchedChanged(c);
    s.endTransaction();
    if (failed) {
      throw new RespError("EXECABORT Transaction discarded because of previous errors.");
    }
    if (changed) {
      c.out().nullArray();
      return;
    }
    c.out().array(queued.size());
    s.executing = true;
    try {
      for (RespFrame.Command command : queued) {
        RespDispatcher.runQueued(s, command.args());
      }
    } finally {
      s.executing = false;
    }
  }

  private static boolean watchedChanged(RespCall c) {
    for (RespSession.Watch w : c.session.watched) {
      StoredValue v = c.keyspace().peek(w.db(), w.key());
      if ((v == null ? 0 : v.version()) != w.version()) {
        return true;
      }
    }
    return false;
  }
}
