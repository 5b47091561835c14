package dev.larder.model;

import java.util.UUID;

/**
 * Recognises UUIDs in their canonical text form ({@code 8-4-4-4-12} lower-case hex digits),
 * the form {@link UUID#toString()} produces, so that a codec can store such a string as 16
 * bytes and rebuild exactly the same string.
 *
 * <p>Implementation notes: the JDK's parser and formatter are intrinsically fast (a few tens of
 * nanoseconds each), much faster than a char-by-char loop here measured; {@code fromString} is
 * lenient (short groups, upper case), so the formatted result is compared with the input.
 */
final class Uuids {

  private Uuids() {}

  /**
   * @param s any string
   * @return the UUID if {@code s} is its canonical text form, else null
   */
  static UUID parseCanonical(String s) {
    if (s.length() != 36 || s.charAt(8) != '-' || s.charAt(13) != '-' || s.charAt(18) != '-'
        || s.charAt(23) != '-') {
      return null;
    }
    try {
      UUID uuid = UUID.fromString(s);
      return uuid.toString().equals(s) ? uuid : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
