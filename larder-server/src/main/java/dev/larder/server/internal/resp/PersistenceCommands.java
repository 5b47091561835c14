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
 * are queued like any command.
 */
final class PersistenceCommands {
  private static final String OFF = "ERR persistence is off (start the server with --dir)";

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
