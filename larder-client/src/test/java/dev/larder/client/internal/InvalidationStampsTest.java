package dev.larder.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class InvalidationStampsTest {
  private static byte[] key(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void anInvalidationChangesTheKeysStampAndNoOtherSlots() {
    InvalidationStamps stamps = new InvalidationStamps(1 << 16);
    int a = stamps.stamp(key("a"));
    int[] others = new int[100];
    for (int i = 0; i < others.length; i++) {
      others[i] = stamps.stamp(key("other" + i));
    }
    stamps.invalidate(key("a"));
    assertNotEquals(a, stamps.stamp(key("a")));
    int unchanged = 0;
    for (int i = 0; i < others.length; i++) {
      unchanged += others[i] == stamps.stamp(key("other" + i)) ? 1 : 0;
    }
    // At most one of the hundred shares a's slot (1 in 65,536 each).
    assertEquals(true, unchanged >= 99, unchanged + " of 100 unchanged");
  }

  @Test
  void aFlushChangesEveryStamp() {
    InvalidationStamps stamps = new InvalidationStamps(1024);
    int a = stamps.stamp(key("a"));
    int b = stamps.stamp(key("b"));
    stamps.invalidateAll();
    assertNotEquals(a, stamps.stamp(key("a")));
    assertNotEquals(b, stamps.stamp(key("b")));
  }

  @Test
  void aSharedSlotRetiresBothKeys() {
    InvalidationStamps stamps = new InvalidationStamps(1);
    int b = stamps.stamp(key("b"));
    stamps.invalidate(key("a"));
    assertNotEquals(b, stamps.stamp(key("b")), "a miss too many, never a stale read");
  }

  @Test
  void theSlotCountIsAPowerOfTwo() {
    assertThrows(IllegalArgumentException.class, () -> new InvalidationStamps(1000));
    assertThrows(IllegalArgumentException.class, () -> new InvalidationStamps(0));
  }
}
