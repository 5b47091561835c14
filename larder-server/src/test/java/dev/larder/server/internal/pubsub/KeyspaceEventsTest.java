package dev.larder.server.internal.pubsub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * notify-keyspace-events as Redis 7.0 reads and prints it (checked against redis-server 7.0.15).
 */
class KeyspaceEventsTest {
  private static String roundTrip(String classes) {
    return KeyspaceEvents.format(KeyspaceEvents.parse(classes));
  }

  @Test
  void printsInRedisOrder() {
    assertEquals("AKE", roundTrip("KEA"));
    assertEquals("xE", roundTrip("Ex"));
    assertEquals("g$xKE", roundTrip("KEg$x"));
    assertEquals(
        "AKEm", roundTrip("AKEnm"), "as Redis: n is not part of A, and not shown beside it");
    assertEquals("g$lshzn", roundTrip("nzhsl$g"));
    assertEquals("A", roundTrip("g$lshzxetd"), "every data class but n is A");
    assertEquals("", roundTrip(""));
  }

  @Test
  void refusesUnknownCharacters() {
    assertThrows(IllegalArgumentException.class, () -> KeyspaceEvents.parse("Q"));
    assertThrows(IllegalArgumentException.class, () -> KeyspaceEvents.parse("KE!"));
  }

  @Test
  void bitsAreRedisOwn() {
    // K is bit 0, as in Redis's NOTIFY_KEYSPACE
    assertEquals(1 | KeyspaceEvents.EXPIRED | KeyspaceEvents.EVICTED, KeyspaceEvents.parse("Kxe"));
    assertEquals(1 << 8, KeyspaceEvents.EXPIRED);
  }
}
