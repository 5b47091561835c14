package dev.larder.server.internal.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Key slots as Redis Cluster computes them: fixed vectors (CRC16/XMODEM's check value, slots
 * Redis's documentation gives, the hash-tag rules), and random keys dense in braces checked against
 * {@code CLUSTER KEYSLOT} of a redis-server started with {@code --cluster-enabled yes}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HashSlotTest {

  private static int slot(String key) {
    return HashSlot.of(key.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void crc16IsXmodem() {
    byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
    assertEquals(0x31C3, HashSlot.crc16(check, 0, check.length));
  }

  @Test
  void slotsOfKnownKeys() {
    assertEquals(12182, slot("foo"));
    assertEquals(11058, slot("somekey"));
    assertEquals(2515, slot("foo{hash_tag}"));
    assertEquals(0, slot(""));
  }

  @Test
  void hashTagRules() {
    assertEquals(slot("user1000"), slot("{user1000}.following"));
    assertEquals(slot("bar"), slot("foo{bar}{zap}"), "the first tag only");
    assertEquals(slot("{bar"), slot("foo{{bar}}zap"), "from the first { to the first } after it");
    assertEquals(
        HashSlot.crc16("foo{}{bar}".getBytes(StandardCharsets.US_ASCII), 0, 10)
            & (HashSlot.SLOTS - 1),
        slot("foo{}{bar}"),
        "an empty tag: the whole key");
    assertEquals(
        HashSlot.crc16("foo{bar".getBytes(StandardCharsets.US_ASCII), 0, 7) & (HashSlot.SLOTS - 1),
        slot("foo{bar"),
        "no closing brace: the whole key");
  }

  @Test
  void aKeyInsideALargerBufferHasItsOwnSlot() {
    byte[] stored = "\u0003{tag}rest".getBytes(StandardCharsets.US_ASCII);
    assertEquals(slot("tag"), HashSlot.of(stored, 1, stored.length));
    assertEquals(slot("{tag}rest"), HashSlot.of(stored, 1, stored.length));
  }

  @Test
  void randomKeysHaveRedisClustersSlots(@TempDir Path dir) throws Exception {
    try (RedisServer redis =
            RedisServer.start(
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                dir.resolve("nodes.conf").toString(),
                "--dir",
                dir.toString());
        Jedis jedis = new Jedis("127.0.0.1", redis.port(), 5_000)) {
      Random random = new Random(34);
      String alphabet = "ab{}x";
      for (int i = 0; i < 2000; i++) {
        StringBuilder key = new StringBuilder();
        for (int n = random.nextInt(12) + 1; n > 0; n--) {
          key.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        assertEquals(jedis.clusterKeySlot(key.toString()), slot(key.toString()), key.toString());
      }
    }
  }
}
