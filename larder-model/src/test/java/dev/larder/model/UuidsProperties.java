package dev.larder.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The one-pass parser accepts exactly the strings {@link UUID#toString()} produces. */
class UuidsProperties {

  @Property(tries = 3_000)
  void acceptsExactlyCanonicalForms(@ForAll("nearlyUuids") String s) {
    assertEquals(reference(s), Uuids.parseCanonical(s), s);
  }

  @Property
  void everyUuidRoundTrips(@ForAll long msb, @ForAll long lsb) {
    UUID uuid = new UUID(msb, lsb);
    assertEquals(uuid, Uuids.parseCanonical(uuid.toString()));
    assertEquals(uuid, Uuids.parseCanonical("x" + uuid + "y", 1));
  }

  /** Mostly 36 characters with dashes in place, from an alphabet with near misses. */
  @Provide
  Arbitrary<String> nearlyUuids() {
    Arbitrary<Character> chars =
        Arbitraries.of('0', '1', '9', 'a', 'f', 'A', 'F', 'g', '-', '+', ' ', '\u00e9', '\u0661');
    Arbitrary<String> shaped =
        chars
            .array(char[].class)
            .ofSize(36)
            .map(
                c -> {
                  c[8] = '-';
                  c[13] = '-';
                  c[18] = '-';
                  c[23] = '-';
                  return new String(c);
                });
    Arbitrary<String> hexOnly =
        Arbitraries.strings()
            .withChars("0123456789abcdef")
            .ofLength(32)
            .map(
                h ->
                    h.substring(0, 8)
                        + '-'
                        + h.substring(8, 12)
                        + '-'
                        + h.substring(12, 16)
                        + '-'
                        + h.substring(16, 20)
                        + '-'
                        + h.substring(20));
    return Arbitraries.oneOf(
        shaped, hexOnly, chars.array(char[].class).ofMaxSize(40).map(String::new));
  }

  private static UUID reference(String s) {
    try {
      UUID uuid = UUID.fromString(s);
      return uuid.toString().equals(s) ? uuid : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
