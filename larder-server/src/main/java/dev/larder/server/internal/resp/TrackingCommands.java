package dev.larder.server.internal.resp;

import dev.larder.server.internal.pubsub.Tracking;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO: a connection's client-side caching mode,
 * with Redis 7's options, checks and error lines. The table of tracked keys is {@link Tracking}'s.
 */
final class TrackingCommands {
  private TrackingCommands() {}

  /** CLIENT TRACKING (ON|OFF) [REDIRECT id] [BCAST] [PREFIX p ...] [OPTIN] [OPTOUT] [NOLOOP]. */
  static void tracking(RespCall c) {
    if (c.argc() < 3) {
      throw new RespError("ERR wrong number of arguments for 'client|tracking' command");
    }
    long redirect = 0;
    boolean bcast = false;
    boolean optin = false;
    boolean optout = false;
    boolean noloop = false;
    List<byte[]> prefixes = new ArrayList<>();
    for (int j = 3; j < c.argc(); j++) {
      boolean more = j + 1 < c.argc();
      switch (c.option(j)) {
        case "redirect" -> {
          if (!more) {
            throw new RespError(RespError.SYNTAX);
          }
          if (redirect != 0) {
            throw new RespError("ERR A client can only redirect to a single other client");
          }
          redirect = c.integer(++j);
          if (!c.server().tracking().exists(redirect)) {
            throw new RespError("ERR The client ID you want redirect to does not exist");
          }
        }
        case "bcast" -> bcast = true;
        case "optin" -> optin = true;
        case "optout" -> optout = true;
        case "noloop" -> noloop = true;
        case "prefix" -> {
          if (!more) {
            throw new RespError(RespError.SYNTAX);
          }
          prefixes.add(c.arg(++j));
        }
        default -> throw new RespError(RespError.SYNTAX);
      }
    }
    RespSession s = c.session;
    Tracking tracking = c.server().tracking();
    switch (c.option(2)) {
      case "on" -> {
        Tracking.Mode now = tracking.mode(s.id());
        check(now, bcast, optin, optout, prefixes);
        tracking.on(s, new Tracking.Mode(bcast, optin, optout, noloop, redirect, prefixes));
        s.info.redirect(redirect);
      }
      case "off" -> {
        tracking.off(s.id());
        s.info.redirect(-1);
        s.cachingFlag = false;
      }
      default -> throw new RespError(RespError.SYNTAX);
    }
    c.out().ok();
  }

  /** Redis's checks of the options against each other and the mode the client has. */
  private static void check(
      Tracking.Mode now, boolean bcast, boolean optin, boolean optout, List<byte[]> prefixes) {
    if (!bcast && !prefixes.isEmpty()) {
      throw new RespError("ERR PREFIX option requires BCAST mode to be enabled");
    }
    if (now != null && now.bcast() != bcast) {
      throw new RespError(
          "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and"
              + " then re-enabling it with a different mode.");
    }
    if (bcast && (optin || optout)) {
      throw new RespError("ERR OPTIN and OPTOUT are not compatible with BCAST");
    }
    if (optin && optout) {
      throw new RespError("ERR You can't specify both OPTIN mode and OPTOUT mode");
    }
    if (now != null && ((optin && now.optout()) || (optout && now.optin()))) {
      throw new RespError(
          "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and"
              + " then re-enabling it with a different mode.");
    }
    if (bcast) {
      checkPrefixes(now == null ? List.of() : now.prefixes(), prefixes);
    }
  }

  /** Two prefixes of one client overlap when one starts with the other. */
  private static void checkPrefixes(List<byte[]> existing, List<byte[]> added) {
    for (int i = 0; i < added.size(); i++) {
      byte[] p = added.get(i);
      for (byte[] e : existing) {
        if (overlap(e, p)) {
          throw new RespError(
              "ERR Prefix '"
                  + text(p)
                  + "' overlaps with an existing prefix '"
                  + text(e)
                  + "'. Prefixes for a single client must not overlap.");
        }
      }
      for (int j = i + 1; j < added.size(); j++) {
        if (overlap(p, added.get(j))) {
          throw new RespError(
              "ERR Prefix '"
                  + text(p)
                  + "' overlaps with another provided prefix '"
                  + text(added.get(j))
                  + "'. Prefixes for a single client must not overlap.");
        }
      }
    }
  }

  private static boolean overlap(byte[] a, byte[] b) {
    int n = Math.min(a.length, b.length);
    return Arrays.equals(a, 0, n, b, 0, n);
  }

  private static String text(byte[] b) {
    return new String(b, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** CLIENT CACHING (YES|NO): whether the next command's keys are tracked, in OPTIN/OPTOUT. */
  static void caching(RespCall c) {
    if (c.argc() != 3) {
      throw new RespError("ERR wrong number of arguments for 'client|caching' command");
    }
    Tracking.Mode mode = c.server().tracking().mode(c.session.id());
    if (mode == null) {
      throw new RespError(
          "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN"
              + " or OPTOUT mode enabled");
    }
    switch (c.option(2)) {
      case "yes" -> {
        if (!mode.optin()) {
          throw new RespError(
              "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
        }
      }
      case "no" -> {
        if (!mode.optout()) {
          throw new RespError(
              "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
        }
      }
      default -> throw new RespError(RespError.SYNTAX);
    }
    c.session.cachingFlag = true;
    c.out().ok();
  }

  /** CLIENT GETREDIR: -1 when not tracking, 0 without a redirect, else the target's id. */
  static void getRedirect(RespCall c) {
    Tracking.Mode mode = c.server().tracking().mode(c.session.id());
    c.out().integer(mode == null ? -1 : mode.redirect());
  }

  /** CLIENT TRACKINGINFO: flags, redirect, prefixes. */
  static void trackingInfo(RespCall c) {
    Tracking tracking = c.server().tracking();
    long id = c.session.id();
    Tracking.Mode mode = tracking.mode(id);
    List<String> flags = new ArrayList<>();
    flags.add(mode == null ? "off" : "on");
    if (mode != null) {
      if (mode.bcast()) {
        flags.add("bcast");
      }
      if (mode.optin()) {
        flags.add("optin");
        if (c.session.cachingFlag) {
          flags.add("caching-yes");
        }
      }
      if (mode.optout()) {
        flags.add("optout");
        if (c.session.cachingFlag) {
          flags.add("caching-no");
        }
      }
      if (mode.noloop()) {
        flags.add("noloop");
      }
      if (tracking.brokenRedirect(id)) {
        flags.add("broken_redirect");
      }
    }
    RespWriter out = c.out();
    out.map(3);
    out.bulk("flags");
    out.set(flags.size());
    flags.forEach(out::bulk);
    out.bulk("redirect");
    out.integer(mode == null ? -1 : mode.redirect());
    out.bulk("prefixes");
    List<byte[]> prefixes = mode == null ? List.of() : mode.prefixes();
    out.array(prefixes.size());
    prefixes.forEach(out::bulk);
  }

  /**
   * Before a read-only command runs: registers its keys for the connection if it tracks them (not
   * in BCAST mode; in OPTIN only after CLIENT CACHING yes, in OPTOUT unless after CLIENT CACHING
   * no), before they are read (see {@link Tracking}'s notes).
   */
  static void rememberKeys(RespSession s, RespCommand cmd, List<byte[]> args) {
    Tracking tracking = s.server.tracking();
    Tracking.Mode mode = tracking.mode(s.id());
    if (mode == null || mode.bcast()) {
      return;
    }
    if ((mode.optin() && !s.cachingFlag) || (mode.optout() && s.cachingFlag)) {
      return;
    }
    for (int i = cmd.firstKeyIn(), last = cmd.lastKeyIn(args);
        i <= last;
        i = cmd.nextKeyAfter(i, args)) {
      tracking.remember(s.id(), args.get(i));
    }
  }
}
