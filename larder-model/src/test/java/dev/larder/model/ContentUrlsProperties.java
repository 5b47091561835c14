package dev.larder.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.time.Instant;
import java.util.UUID;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** The compact content-URL form must rebuild exactly the string it was parsed from. */
class ContentUrlsProperties {

  @Property
  void canonicalUrlsParseAndFormatBack(
      @ForAll @LongRange(min = -62_000_000_000_000L, max = 250_000_000_000_000L) long millis,
      @ForAll long msb,
      @ForAll long lsb) {
    String url = ContentUrls.format(Instant.ofEpochMilli(millis), new UUID(msb, lsb));
    ContentUrls.Parts parts = ContentUrls.parse(url);
    if (millis >= 0) {
      assertNotNull(parts, url);
    }
    if (parts != null) {
      assertEquals(url, parts.format());
    }
  }

  @Property
  void anyEditedUrlEitherFailsToParseOrFormatsBackExactly(
      @ForAll long msb,
      @ForAll long lsb,
      @ForAll @IntRange(min = 0, max = 70) int at,
      @ForAll @CharRange(from = '+', to = 'g') char c) {
    String url = ContentUrls.format(Instant.parse("2020-06-30T01:02:03Z"), new UUID(msb, lsb));
    String edited =
        url.substring(0, Math.min(at, url.length()))
            + c
            + url.substring(Math.min(at + 1, url.length()));
    ContentUrls.Parts parts = ContentUrls.parse(edited);
    if (parts != null) {
      assertEquals(edited, parts.format());
    }
  }
}
