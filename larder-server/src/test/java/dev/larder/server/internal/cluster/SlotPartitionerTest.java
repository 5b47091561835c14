package dev.larder.server.internal.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The slots' mapping onto segments: each segment holds one contiguous run of slots, the runs are
 * equal and cover all 16,384 in order, and a stored key (database byte, then the key) goes to its
 * slot's segment whatever its database.
 */
class SlotPartitionerTest {

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 16, 256, 16384})
  void segmentsHoldEqualContiguousRunsOfSlots(int segments) {
    int run = HashSlot.SLOTS / segments;
    for (int slot = 0; slot < HashSlot.SLOTS; slot++) {
      int segment = SlotPartitioner.segmentOfSlot(slot, segments);
      assertEquals(slot / run, segment, "slot " + slot);
      assertTrue(
          SlotPartitioner.firstSlot(segment, segments) <= slot
              && slot < SlotPartitioner.firstSlot(segment, segments) + run,
          "slot " + slot);
    }
    assertEquals(0, SlotPartitioner.firstSlot(0, segments));
    assertEquals(HashSlot.SLOTS - run, SlotPartitioner.firstSlot(segments - 1, segments));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 15})
  void aStoredKeyGoesToItsSlotsSegmentInEveryDatabase(int database) {
    for (String key : new String[] {"foo", "somekey", "user:{42}:name", "user:{42}:mail", ""}) {
      byte[] k = key.getBytes(StandardCharsets.US_ASCII);
      byte[] stored = new byte[k.length + 1];
      stored[0] = (byte) database;
      System.arraycopy(k, 0, stored, 1, k.length);
      assertEquals(
          SlotPartitioner.segmentOfSlot(HashSlot.of(k), 256),
          SlotPartitioner.INSTANCE.segmentOf(stored, 256),
          key);
    }
    assertEquals(
        SlotPartitioner.INSTANCE.segmentOf(new byte[] {0, 'u', '{', '4', '2', '}'}, 256),
        SlotPartitioner.segmentOfSlot(HashSlot.of("42".getBytes(StandardCharsets.US_ASCII)), 256));
  }
}
