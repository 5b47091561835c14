package dev.larder.server.internal.resp;

/**
 * An expiry option of SET or GETEX: EX, PX, EXAT, PXAT or KEEPTTL with its amount, as Redis
 * validates it (a positive integer that does not overflow milliseconds).
 *
 * @param kind ex, px, exat, pxat, keepttl, or none
 * @param amount the option's number
 */
record ExpiryOption(String kind, long amount) {
  static final ExpiryOption NONE = new ExpiryOption("none", 0);

  /** Returns how many words the option took. */
  int words() {
    return kind.equals("keepttl") || kind.equals("none") ? 1 : 2;
  }

  boolean keepTtl() {
    return kind.equals("keepttl");
  }

  /**
   * Returns the absolute expiry, 0 for none or KEEPTTL.
   *
   * @param now the current Unix milliseconds
   */
  long absoluteMillis(long now) {
    return switch (kind) {
      case "ex" -> now + amount * 1000;
      case "px" -> now + amount;
      case "exat" -> amount * 1000;
      case "pxat" -> amount;
      default -> 0;
    };
  }

  /**
   * Returns the option.
   *
   * @param c the call
   * @param i the option's position
   * @param getex whether GETEX parses it (no KEEPTTL there)
   * @throws RespError for a syntax error or an invalid time
   */
  static ExpiryOption parse(RespCall c, int i, boolean getex) {
    String kind = c.option(i);
    if (kind.equals("keepttl") && !getex) {
      return new ExpiryOption(kind, 0);
    }
    if (!(kind.equals("ex") || kind.equals("px") || kind.equals("exat") || kind.equals("pxat"))
        || i + 1 >= c.argc()) {
      throw new RespError(RespError.SYNTAX);
    }
    long amount = c.integer(i + 1);
    long unit = kind.equals("ex") || kind.equals("exat") ? 1000 : 1;
    long base = kind.endsWith("at") ? 0 : c.keyspace().now();
    if (amount <= 0 || amount > (Long.MAX_VALUE - base) / unit) {
      throw new RespError("ERR invalid expire time in '" + c.name() + "' command");
    }
    return new ExpiryOption(kind, amount);
  }
}
