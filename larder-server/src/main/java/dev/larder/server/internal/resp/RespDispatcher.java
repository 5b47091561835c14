package dev.larder.server.internal.resp;

import dev.larder.cluster.ClusterException;
import dev.larder.server.internal.cluster.PendingAcks;
import dev.larder.server.internal.cluster.ServerCluster;
import dev.larder.server.internal.net.CrossProtocolGuard;
import dev.larder.server.internal.net.ReplyLimitExceeded;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * Runs one RESP command: looks it up, checks arity, authentication, ACL permissions, the loading
 * state ({@link LoadingCommands}), CLIENT PAUSE, memory and MULTI queueing as Redis does (and in
 * Redis's order), takes the keyspace lock the command needs, runs it, and turns a {@link RespError}
 * (or any other failure) into an error reply. Every path writes exactly one reply, but for a
 * connection whose user ACL DELUSER removed, which is closed, one that sends HTTP (see {@link
 * CrossProtocolGuard}), closed at once, and a reply over the connection's output limit ({@link
 * ReplyLimitExceeded}, passed on to the pipeline).
 *
 * <p>Stateless; thread-safe as long as each session is used by one thread.
 */
public final class RespDispatcher {
  private RespDispatcher() {}

  /**
   * Runs one command and writes its reply.
   *
   * @param s the connection
   * @param args the command's words
   */
  public static void dispatch(RespSession s, List<byte[]> args) {
    int mark = s.out.target().writerIndex();
    boolean skipThis = s.skipReply;
    s.skipReply = false;
    RespSession.Lookup lookup = s.lookup(args.getFirst());
    if (!dispatch(s, args, lookup)) {
      // Held back by CLIENT PAUSE: run again later, skipped then if it was to be skipped now.
      s.skipReply = skipThis;
      return;
    }
    if ((s.replyOff || s.skipReply || skipThis)
        && !PubSubCommands.SUBSCRIPTIONS.contains(lookup.name())) {
      // CLIENT REPLY OFF or SKIP: the reply is dropped; subscription replies are sent, as Redis
      // sends them (they are pushes in RESP3).
      s.out.target().writerIndex(mark);
    }
    CompletableFuture<Void> acks = s.pendingAcks;
    if (acks != null) {
      s.pendingAcks = null;
      s.awaitAcks(acks, mark);
    }
  }

  /** Returns false if CLIENT PAUSE held the command back, unanswered; true once answered. */
  private static boolean dispatch(RespSession s, List<byte[]> args, RespSession.Lookup lookup) {
    String name = lookup.name();
    RespCommand cmd = lookup.command();
    s.server.commandProcessed();
    s.info.lastCommand(cmd == null ? "NULL" : name);
    if (cmd == null && CrossProtocolGuard.respHttp(name)) {
      // HTTP's request line or Host header: a web page sending commands through a browser.
      s.server.crossProtocolGuard().refuse(s.connection, "RESP");
    } else if (cmd == null) {
      failQueue(s);
      s.out.error(unknownCommand(args));
    } else if (!cmd.arityAccepts(args.size())) {
      failQueue(s);
      cmd.stats().rejected();
      s.out.error("ERR wrong number of arguments for '" + name + "' command");
    } else if (s.user == null && !cmd.flags().contains(RespCommand.Flag.NO_AUTH)) {
      failQueue(s);
      s.out.error("NOAUTH Authentication required.");
    } else if (s.user != null && s.user.removed()) {
      // ACL DELUSER removed the user: Redis closes its connections, without a reply.
      s.closeAfterReply = true;
    } else if (s.user != null
        && !cmd.flags().contains(RespCommand.Flag.NO_AUTH)
        && denied(s, cmd, name, args)) {
      failQueue(s);
      cmd.stats().rejected();
    } else if (redirected(s, cmd, args)) {
      failQueue(s);
      cmd.stats().rejected();
    } else if (s.out.protocol() == 2
        && s.subscriptions() > 0
        && !PubSubCommands.SUBSCRIBED_CONTEXT.contains(name)) {
      failQueue(s);
      s.out.error(
          "ERR Can't execute '"
              + name
              + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in"
              + " this context");
    } else if (s.server.loading() != null && !LoadingCommands.allowed(name, args)) {
      // Redis's order: after the subscribed context, before CLIENT PAUSE and MULTI queueing
      failQueue(s);
      cmd.stats().rejected();
      s.out.error(LoadingCommands.ERROR);
    } else if (s.server.clientPause().holds(s, cmd)) {
      s.postpone(args);
      return false;
    } else if (s.inMulti()
        && !cmd.flags().contains(RespCommand.Flag.NO_MULTI)
        && !name.equals("quit")) {
      queue(s, args);
    } else {
      run(s, cmd, args, true);
      // Clients blocked on keys this command wrote are served before its reply is sent.
      s.server.blockedClients().serveReady();
    }
    if (s.cachingFlag && !s.inMulti() && !name.equals("client")) {
      // CLIENT CACHING applies to the next command only (in MULTI, to the transaction).
      s.cachingFlag = false;
    }
    return true;
  }

  /**
   * On a clustered server, a connection that asked for redirections (READONLY, or every one under
   * cluster-redirects on) is sent MOVED or CROSSSLOT instead of a run, as Redis Cluster does after
   * the ACL check and before MULTI queueing.
   *
   * @return whether the command was answered with a redirection
   */
  private static boolean redirected(RespSession s, RespCommand cmd, List<byte[]> args) {
    String redirect = ClusterCommands.redirect(s, cmd, args);
    if (redirect == null) {
      return false;
    }
    s.out.error(redirect);
    return true;
  }

  /**
   * Checks the user's ACL rules; on a refusal writes Redis 7.2's NOPERM error.
   *
   * @return whether the command is refused
   */
  private static boolean denied(RespSession s, RespCommand cmd, String name, List<byte[]> args) {
    AclUser.Rules rules = s.user.rules();
    if (!rules.permits(name)) {
      s.out.error(
          "NOPERM User " + s.user.name() + " has no permissions to run the '" + name + "' command");
      return true;
    }
    if (rules.allKeys() || !cmd.hasKeys()) {
      return false;
    }
    for (int i = cmd.firstKeyIn(), last = cmd.lastKeyIn(args);
        i <= last;
        i = cmd.nextKeyAfter(i, args)) {
      if (!rules.permitsKey(args.get(i))) {
        s.out.error("NOPERM No permissions to access a key");
        return true;
      }
    }
    return false;
  }

  /** Runs a command EXEC took from the queue; EXEC already holds the exclusive lock. */
  static void runQueued(RespSession s, List<byte[]> args) {
    RespSession.Lookup lookup = s.lookup(args.getFirst());
    String name = lookup.name();
    RespCommand cmd = lookup.command();
    // The rules are checked again, as Redis does: ACL SETUSER may have changed them since the
    // command was queued; a refusal is that command's reply inside EXEC's array.
    if (!cmd.flags().contains(RespCommand.Flag.NO_AUTH) && denied(s, cmd, name, args)) {
      cmd.stats().rejected();
      return;
    }
    run(s, cmd, args, false);
  }

  /**
   * Runs a command under its keyspace lock and writes its reply or its error.
   *
   * @param deferAcks whether the command's puts may leave their acknowledgement pending on a
   *     clustered server ({@link PendingAcks}; {@link RespSession#awaitAcks} then holds the reply):
   *     not for a blocking command, which holds its connection by itself, nor EXEC and the commands
   *     it runs, whose replies are answered as one
   */
  @SuppressWarnings("ReferenceEquality") // translate returns its argument if no reply limit
  private static void run(RespSession s, RespCommand cmd, List<byte[]> args, boolean deferAcks) {
    if (cmd.flags().contains(RespCommand.Flag.DENYOOM) && s.server.outOfMemory()) {
      s.out.error("OOM command not allowed when used memory > 'maxmemory'.");
      cmd.stats().rejected();
      return;
    }
    Lock lock =
        cmd.flags().contains(RespCommand.Flag.EXCLUSIVE)
            ? s.server.keyspace().exclusive()
            : s.server.keyspace().shared();
    int mark = s.out.target().writerIndex();
    if (cmd.flags().contains(RespCommand.Flag.READONLY) && cmd.hasKeys()) {
      TrackingCommands.rememberKeys(s, cmd, args);
    }
    Object scope = s.server.keyEvents().begin(s.info.id(), cmd.name(), cmd.group());
    long start = System.nanoTime();
    boolean failed = true;
    boolean collect =
        deferAcks
            && s.server.cluster() != null
            && !cmd.flags().contains(RespCommand.Flag.BLOCKING)
            && !cmd.name().equals("exec");
    if (collect) {
      PendingAcks.arm();
    }
    lock.lock();
    try {
      cmd.action().run(new RespCall(s, cmd, args));
      failed = false;
    } catch (RespError e) {
      s.out.target().writerIndex(mark);
      s.out.error(e.getMessage());
    } catch (ClusterException e) {
      // a minority side's refusal (CLUSTERDOWN) or members that did not answer (TRYAGAIN)
      s.out.target().writerIndex(mark);
      s.out.error(ServerCluster.respError(e));
    } catch (ReplyLimitExceeded e) {
      s.out.target().writerIndex(mark);
      throw e;
    } catch (RuntimeException e) {
      RuntimeException limit = ReplyLimitExceeded.translate(s.out.target(), e);
      s.out.target().writerIndex(mark);
      if (limit != e) {
        throw limit;
      }
      s.out.error("ERR " + (e.getMessage() == null ? e.toString() : e.getMessage()));
    } finally {
      lock.unlock();
      if (collect) {
        s.pendingAcks = PendingAcks.disarm();
      }
      s.server.keyEvents().end(scope);
      cmd.stats().ran(System.nanoTime() - start, failed);
    }
  }

  private static void queue(RespSession s, List<byte[]> args) {
    long bytes = 0;
    for (byte[] a : args) {
      bytes += a.length + 16;
    }
    s.queuedBytes += bytes;
    if (s.queuedBytes > s.server.config().maxRequestBytes()) {
      s.queueFailed = true;
      s.out.error("ERR transaction exceeds max-request-bytes");
      return;
    }
    s.queued.add(new RespFrame.Command(args));
    s.out.simple("QUEUED");
  }

  private static void failQueue(RespSession s) {
    if (s.inMulti()) {
      s.queueFailed = true;
    }
  }

  static String unknownCommand(List<byte[]> args) {
    StringBuilder sb =
        new StringBuilder("ERR unknown command '")
            .append(printable(args.getFirst(), 128))
            .append("', with args beginning with: ");
    for (int i = 1; i < args.size() && sb.length() < 512; i++) {
      sb.append('\'').append(printable(args.get(i), 128)).append("' ");
    }
    return sb.toString();
  }

  private static String printable(byte[] b, int max) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < b.length && i < max; i++) {
      int ch = b[i] & 0xFF;
      sb.append(ch >= ' ' && ch < 127 ? (char) ch : '?');
    }
    return sb.toString();
  }
}
