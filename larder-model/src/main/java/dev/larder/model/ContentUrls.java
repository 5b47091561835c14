package dev.larder.model;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.UUID;

/**
 * Content URLs of the form {@code store://yyyy/M/d/H/m/<uuid>.bin} (UTC, no leading zeros, a
 * canonical lower-case UUID), which repositories derive from the time content was written. The
 * codec stores such URLs as their parts (21 bytes instead of about 60); {@link #parse} recognises
 * exactly the strings {@link #format} produces, so the round trip is exact.
 */
final class ContentUrls {

  private static final String PREFIX = "store://";
  private static final String SUFFIX = ".bin";

  private ContentUrls() {}

  /** The parts of a content URL in the canonical form. */
  record Parts(int year, int month, int day, int hour, int minute, long msb, long lsb) {
    String format() {
      return PREFIX
          + year
          + '/'
          + month
          + '/'
          + day
          + '/'
          + hour
          + '/'
          + minute
          + '/'
          + new UUID(msb, lsb)
          + SUFFIX;
    }
  }

  static String format(Instant when, UUID id) {
    ZonedDateTime t = when.atZone(ZoneOffset.UTC);
    return new Parts(
            t.getYear(),
            t.getMonthValue(),
            t.getDayOfMonth(),
            t.getHour(),
            t.getMinute(),
            id.getMostSignificantBits(),
            id.getLeastSignificantBits())
        .format();
  }

  /**
   * Returns its parts if it is in the canonical form, else null.
   *
   * @param url any string
   */
  static Parts parse(String url) {
    if (!url.startsWith(PREFIX) || !url.endsWith(SUFFIX)) {
      return null;
    }
    int[] fields = new int[5];
    int pos = PREFIX.length();
    for (int i = 0; i < 5; i++) {
      pos = readNumber(url, pos, fields, i);
      if (pos < 0) {
        return null;
      }
    }
    if (url.length() - SUFFIX.length() - pos != 36) {
      return null;
    }
    UUID id = Uuids.parseCanonical(url, pos);
    if (id == null) {
      return null;
    }
    // Numbers without leading zeros and a canonical UUID are exactly what format() writes.
    return new Parts(
        fields[0],
        fields[1],
        fields[2],
        fields[3],
        fields[4],
        id.getMostSignificantBits(),
        id.getLeastSignificantBits());
  }

  /**
   * Reads a number of 1 to 6 digits without a leading zero, and the slash after it.
   *
   * @return the position after the slash, or -1 if there is no such number there
   */
  private static int readNumber(String s, int from, int[] fields, int field) {
    int value = 0;
    int end = Math.min(s.length(), from + 7);
    for (int i = from; i < end; i++) {
      char c = s.charAt(i);
      if (c == '/') {
        if (i == from || (i - from > 1 && s.charAt(from) == '0')) {
          return -1;
        }
        fields[field] = value;
        return i + 1;
      }
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return -1;
  }
}
