package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.NO_MULTI;

import dev.larder.server.internal.cluster.ClusterTransactions;
import dev.larder.server.internal.cluster.ServerCluster;
import dev.larder.server.internal.keyspace.StoredValue;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH, with Redis's semantics: commands are queued (an unknown
 * command or a wrong arity while queueing makes EXEC answer EXECABORT), EXEC runs them all under
 * the keyspace's exclusive lock so that no other command interleaves, errors of single commands at
 * run time do not stop the others, and EXEC answers a null array if a watched key changed (its
 * version differs) since WATCH. On a clustered server with {@code cluster-transactions on} the
 * queue runs as one cluster transaction, atomic and isolated against every member's commands.
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
    List<RespSession.Watch> watched = List.copyOf(s.watched);
    boolean changed = watchedChanged(c, watched);
    s.endTransaction();
    if (failed) {
      throw new RespError("EXECABORT Transaction discarded because of previous errors.");
    }
    if (changed) {
      c.out().nullArray();
      return;
    }
    ServerCluster cluster = s.server.cluster();
    // While the member loads, only commands that leave the keyspace alone were queued (the rest
    // answered LOADING and failed the queue), and its transactional store is not joined yet: they
    // run as on a server without one.
    if (cluster != null && cluster.transactions() != null && s.server.loading() == null) {
      execInCluster(c, queued, watched, cluster.transactions());
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

  /**
   * EXEC on a clustered server whose keyspace commits through cluster transactions: the queue runs
   * in one transaction (its reads at one snapshot, its writes applied on every member or on none),
   * which runs again from the start, replies rewritten, if it conflicts at commit; the watched keys
   * are read again in it, so one changed through any member before the commit makes EXEC answer a
   * null array.
   */
  private static void execInCluster(
      RespCall c,
      List<RespFrame.Command> queued,
      List<RespSession.Watch> watched,
      ClusterTransactions transactions) {
    RespSession s = c.session;
    ByteBuf out = c.out().target();
    int mark = out.writerIndex();
    boolean committed =
        transactions.execute(
            () -> {
              out.writerIndex(mark);
              if (watchedChanged(c, watched)) {
                return false;
              }
              c.out().array(queued.size());
              s.executing = true;
              try {
                for (RespFrame.Command command : queued) {
                  RespCommand cmd = s.lookup(command.args().getFirst()).command();
                  transactions.command(s.info.id(), cmd.name(), cmd.group());
                  RespDispatcher.runQueued(s, command.args());
                }
              } finally {
                s.executing = false;
              }
              return true;
            });
    if (!committed) {
      out.writerIndex(mark);
      c.out().nullArray();
    }
  }

  private static boolean watchedChanged(RespCall c, List<RespSession.Watch> watched) {
    for (RespSession.Watch w : watched) {
      StoredValue v = c.keyspace().peek(w.db(), w.key());
      if ((v == null ? 0 : v.version()) != w.version()) {
        return true;
      }
    }
    return false;
  }
}
