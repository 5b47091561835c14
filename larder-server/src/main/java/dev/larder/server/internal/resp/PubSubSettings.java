package dev.larder.server.internal.resp;

/** CONFIG SET of the pub/sub and client-side caching settings, with Redis's error lines. */
final class PubSubSettings {
  private PubSubSettings() {}

  static void setNotifyKeyspaceEvents(RespCall c, String value) {
    try {
      c.server().keyspaceEvents().set(value);
    } catch (IllegalArgumentException e) {
      throw new RespError(
          "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - "
              + e.getMessage());
    }
  }

  static void setTrackingTableMaxKeys(RespCall c, String value) {
    long n;
    try {
      n = Long.parseLong(value);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 0) {
      throw new RespError(
          "ERR CONFIG SET failed (possibly related to argument 'tracking-table-max-keys') -"
              + " argument couldn't be parsed into an integer");
    }
    c.server().tracking().maxKeys(n);
  }
}
