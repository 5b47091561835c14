package dev.larder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.larder.codec.Codecs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A put on a present key is an update, whatever room it has to make: the listener hears the old
 * value once with cause REPLACED, and evictions (cause SIZE, counted in evictionCount) are of other
 * keys only. A small byte bound with values of very different sizes makes nearly every update
 * evict, including, before the fix, the updated key's own old entry.
 */
class UpdateNotificationTest {

  @SuppressWarnings("ArrayRecordComponent") // never compared: the test reads its fields
  private record Removal(long key, byte[] value, RemovalCause cause) {}

  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(60)
  void anUpdateIsReportedAsReplacedOnceAndEvictsOnlyOtherKeys(Storage storage) {
    List<Removal> heard = new ArrayList<>();
    SplittableRandom random = new SplittableRandom(27);
    Map<Long, byte[]> model = new HashMap<>();
    long sizeRemovals = 0;
    long updates = 0;
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(256 << 10)
            .recordStats()
            .executor(Runnable::run)
            .removalListener((k, v, cause) -> heard.add(new Removal(k, v, cause)))
            .build()) {
      for (int op = 0; op < 10_000; op++) {
        long key = random.nextInt(64);
        byte[] value = new byte[1 + random.nextInt(40_000)];
        random.nextBytes(value);
        byte[] old = model.get(key);
        heard.clear();
        cache.put(key, value);
        int replaced = 0;
        for (Removal removal : heard) {
          switch (removal.cause()) {
            case REPLACED -> {
              assertEquals(key, removal.key(), "REPLACED names the updated key");
              assertArrayEquals(old, removal.value(), "REPLACED carries the old value");
              replaced++;
            }
            case SIZE -> {
              assertNotEquals(key, removal.key(), "the put evicted its own key at op " + op);
              assertArrayEquals(model.remove(removal.key()), removal.value());
              sizeRemovals++;
            }
            default -> fail("unexpected " + removal.cause() + " at op " + op);
          }
        }
        assertEquals(old == null ? 0 : 1, replaced, "REPLACED notices for op " + op);
        updates += old == null ? 0 : 1;
        model.put(key, value);
        assertArrayEquals(value, cache.asMap().get(key));
      }
      assertEquals(model.size(), cache.estimatedSize());
      for (Map.Entry<Long, byte[]> entry : model.entrySet()) {
        assertArrayEquals(entry.getValue(), cache.asMap().get(entry.getKey()));
      }
      assertEquals(sizeRemovals, cache.stats().evictionCount());
      assertTrue(
          updates > 1000 && sizeRemovals > 1000,
          updates + " updates, " + sizeRemovals + " evictions: the bound must make updates evict");
    }
  }
}
