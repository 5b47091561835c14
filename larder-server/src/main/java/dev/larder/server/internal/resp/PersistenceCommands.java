package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.ADMIN;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;
import static dev.larder.server.internal.resp.RespCommand.Flag.NO_MULTI;

import dev.larder.server.internal.persist.ServerLog;

/**
 * SAVE, BGSAVE, BGREWRITEAOF and LASTSAVE over the server's log: each of the first three takes a
 * checkpoint (Larder has one file format, so an AOF rewrite and an RDB save are the same thing).
 * Without a log they answer an error; LASTSAVE answers the start time. As in Redis, SAVE inside
 * MULTI is refused (and EXEC then aborts the transaction), while BGSAVE, BGREWRITEAOF and LASTSAVE
 * are queued like any command. SHUTDOWN is checked as Redis checks it and refused (a signal stops
 * the server).
 */
final class PersistenceCommands {
  private static final String OFF = "ERR persistence is off (start the server with --dir)";

  /** What SHUTDOWN answers: Larder is stopped by a signal to its process. */
  static final String SHUTDOWN_REFUSED =
      "ERR SHUTDOWN is not served: stop the server with SIGTERM or SIGINT";

  private PersistenceCommands() {}

  static void register(RespCommandTable t) {
    // SAVE holds the exclusive lock: nothing else runs until the checkpoint is written, as
    // Redis's SAVE blocks the whole server. NO_MULTI keeps it out of the queue, to be refused.
    t.command("save", 1)
        .flags(ADMIN, NO_MULTI, EXCLUSIVE)
        .doc("server", "Synchronously saves the database(s) to disk.", "")
        .run(
            c -> {
              if (c.session().inMulti()) {
                c.session().queueFailed = true;
                throw new RespError("ERR Command not allowed inside a transaction");
              }
              log(c).checkpoint();
              c.out().ok();
            });
    t.command("bgsave", -1)
        .flags(ADMIN)
        .doc("server", "Asynchronously saves the database(s) to disk.", "?schedule:string")
        .run(
            c ->
                background(
                    c, "Background saving started", "ERR Background save already in progress"));
    t.command("bgrewriteaof", 1)
        .flags(ADMIN)
        .doc("server", "Asynchronously rewrites the append-only file to disk.", "")
        .run(
            c ->
                background(
                    c,
                    "Background append only file rewriting started",
                    "ERR Background append only file rewriting already in progress"));
    // SHUTDOWN is known, with Redis's checks and its no-multi rule, and refused: a server is
    // stopped by its process's signal (SIGTERM or SIGINT), which closes the log cleanly, as
    // memcached without -A refuses its shutdown command.
    t.command("shutdown", -1)
        .flags(ADMIN, NO_MULTI)
        .doc(
            "server",
            "Synchronously saves the database(s) to disk and shuts down the Redis server.",
            "?nosave:pure-token ?save:pure-token ?now:pure-token ?force:pure-token"
                + " ?abort:pure-token")
        .run(PersistenceCommands::shutdown);
    t.command("lastsave", 1)
        .flags(FAST)
        .doc("server", "Returns the Unix timestamp of the last successful save to disk.", "")
        .run(
            c -> {
              ServerLog log = c.server().log();
              c.out()
                  .integer(log == null ? c.server().startMillis() / 1000 : log.lastSaveSeconds());
            });
  }

  /**
   * SHUTDOWN: refused inside MULTI as Redis refuses it (the transaction then aborts); its flags
   * checked as Redis 7.0 checks them (NOSAVE or SAVE, NOW, FORCE, or ABORT alone); ABORT answers
   * that no shutdown is in progress, which is so; any other form is refused.
   */
  private static void shutdown(RespCall c) {
    if (c.session().inMulti()) {
      c.session().queueFailed = true;
      throw new RespError("ERR Command not allowed inside a transaction");
    }
    boolean save = false;
    boolean noSave = false;
    boolean abort = false;
    int others = 0;
    for (int i = 1; i < c.argc(); i++) {
      switch (c.option(i)) {
        case "save" -> save = true;
        case "nosave" -> noSave = true;
        case "abort" -> abort = true;
        case "now", "force" -> others++;
        default -> throw new RespError("ERR syntax error");
      }
    }
    if ((save && noSave) || (abort && (save || noSave || others > 0))) {
      throw new RespError("ERR syntax error");
    }
    if (abort) {
      throw new RespError("ERR No shutdown in progress.");
    }
    throw new RespError(SHUTDOWN_REFUSED);
  }

  private static void background(RespCall c, String started, String busy) {
    if (!log(c).checkpointInBackground()) {
      throw new RespError(busy);
    }
    c.out().simple(started);
  }

  private static ServerLog log(RespCall c) {
    ServerLog log = c.server().log();
    if (log == null) {
      throw new RespError(OFF);
    }
    return log;
  }
}
