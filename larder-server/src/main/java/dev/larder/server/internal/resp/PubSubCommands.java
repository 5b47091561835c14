package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;

import dev.larder.server.internal.pubsub.PubSub;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH and PUBSUB, as Redis 7 answers them.
 * Subscription replies are push frames in RESP3 and arrays in RESP2, one per channel or pattern,
 * each with the connection's count of subscriptions after it; a RESP2 connection with subscriptions
 * runs only the commands {@link RespDispatcher} lets through.
 */
final class PubSubCommands {
  /** Commands a RESP2 connection with subscriptions may run (Redis's subscribed context). */
  static final Set<String> SUBSCRIBED_CONTEXT =
      Set.of(
          "subscribe",
          "unsubscribe",
          "psubscribe",
          "punsubscribe",
          "ssubscribe",
          "sunsubscribe",
          "ping",
          "quit",
          "reset");

  /** The commands whose replies are subscription notices, sent even under CLIENT REPLY OFF. */
  static final Set<String> SUBSCRIPTIONS =
      Set.of("subscribe", "unsubscribe", "psubscribe", "punsubscribe");

  private PubSubCommands() {}

  static void register(RespCommandTable t) {
    t.command("subscribe", -2)
        .doc("pubsub", "Listens for messages published to channels.", "channel:string*")
        .run(c -> subscribe(c, false));
    t.command("psubscribe", -2)
        .doc(
            "pubsub",
            "Listens for messages published to channels that match one or more patterns.",
            "pattern:pattern*")
        .run(c -> subscribe(c, true));
    t.command("unsubscribe", -1)
        .doc("pubsub", "Stops listening to messages posted to channels.", "?channel:string*")
        .run(c -> unsubscribe(c, false));
    t.command("punsubscribe", -1)
        .doc(
            "pubsub",
            "Stops listening to messages published to channels that match one or more patterns.",
            "?pattern:pattern*")
        .run(c -> unsubscribe(c, true));
    t.command("publish", 3)
        .flags(FAST)
        .doc("pubsub", "Posts a message to a channel.", "channel:string message:string")
        .run(c -> c.out().integer(c.server().pubsub().publish(c.arg(1), c.arg(2))));
    t.command("pubsub", -2)
        .doc("pubsub", "A container for Pub/Sub commands.", "subcommand:string ?args:string*")
        .run(PubSubCommands::pubsub);
  }

  private static void subscribe(RespCall c, boolean pattern) {
    RespSession s = c.session;
    PubSub pubsub = c.server().pubsub();
    Set<ByteBuffer> mine = pattern ? s.patterns : s.channels;
    for (int i = 1; i < c.argc(); i++) {
      byte[] name = c.arg(i);
      if (mine.add(ByteBuffer.wrap(name.clone()))) {
        if (pattern) {
          pubsub.psubscribe(s, name);
        } else {
          pubsub.subscribe(s, name);
        }
      }
      s.info.subscriptions(s.channels.size(), s.patterns.size());
      c.out().push(3);
      c.out().bulk(pattern ? "psubscribe" : "subscribe");
      c.out().bulk(name);
      c.out().integer(s.subscriptions());
    }
  }

  private static void unsubscribe(RespCall c, boolean pattern) {
    RespSession s = c.session;
    Set<ByteBuffer> mine = pattern ? s.patterns : s.channels;
    String kind = pattern ? "punsubscribe" : "unsubscribe";
    List<byte[]> names = new ArrayList<>();
    if (c.argc() == 1) {
      for (ByteBuffer b : mine) {
        names.add(RespSession.bytes(b));
      }
      if (names.isEmpty()) {
        c.out().push(3);
        c.out().bulk(kind);
        c.out().nullValue();
        c.out().integer(s.subscriptions());
        return;
      }
    } else {
      for (int i = 1; i < c.argc(); i++) {
        names.add(c.arg(i));
      }
    }
    PubSub pubsub = c.server().pubsub();
    for (byte[] name : names) {
      if (mine.remove(ByteBuffer.wrap(name))) {
        if (pattern) {
          pubsub.punsubscribe(s, name);
        } else {
          pubsub.unsubscribe(s, name);
        }
      }
      s.info.subscriptions(s.channels.size(), s.patterns.size());
      c.out().push(3);
      c.out().bulk(kind);
      c.out().bulk(name);
      c.out().integer(s.subscriptions());
    }
  }

  private static void pubsub(RespCall c) {
    PubSub pubsub = c.server().pubsub();
    switch (c.option(1)) {
      case "channels" -> {
        if (c.argc() > 3) {
          throw subcommandArity(c);
        }
        List<byte[]> found = pubsub.channels(c.argc() == 3 ? c.arg(2) : null);
        c.out().array(found.size());
        found.forEach(c.out()::bulk);
      }
      case "numsub" -> {
        c.out().array(2 * (c.argc() - 2));
        for (int i = 2; i < c.argc(); i++) {
          c.out().bulk(c.arg(i));
          c.out().integer(pubsub.subscribers(c.arg(i)));
        }
      }
      case "numpat" -> {
        if (c.argc() != 2) {
          throw subcommandArity(c);
        }
        c.out().integer(pubsub.patterns());
      }
      case "help" -> RespHelp.reply(c, RespHelp.PUBSUB);
      default ->
          throw new RespError("ERR unknown subcommand '" + c.text(1) + "'. Try PUBSUB HELP.");
    }
  }

  private static RespError subcommandArity(RespCall c) {
    return new RespError("ERR wrong number of arguments for 'pubsub|" + c.option(1) + "' command");
  }
}
