package dev.larder.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.larder.server.internal.keyspace.Keyspace;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The start-up warm-up's bulk restore: what it stores, in a keyspace as the warm-up builds it. */
class StartUpWarmUpTest {

  @Test
  void everyBatchIsStoredWholeWithoutEvicting() {
    try (Keyspace keyspace = new Keyspace(16L << 20, System::currentTimeMillis)) {
      StartUpWarmUp.restoreBatches(keyspace);
      int keys = StartUpWarmUp.BATCHES * StartUpWarmUp.BATCH_ENTRIES;
      assertEquals(keys, keyspace.size(0));
      assertEquals(0, keyspace.stats()[3], "keys evicted");
      for (int n : new int[] {0, keys / 2, keys - 1}) {
        byte[] key = ("warm-up:" + n).getBytes(StandardCharsets.US_ASCII);
        assertNotNull(keyspace.getStored(0, key), "warm-up:" + n);
      }
    }
  }
}
