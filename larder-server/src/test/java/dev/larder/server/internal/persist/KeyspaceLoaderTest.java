package dev.larder.server.internal.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.StoredValue;
import dev.larder.server.internal.keyspace.ValueLayout;
import dev.larder.server.internal.keyspace.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Replaying evictions: an EVICT record may come before the PUT of the value it evicted, or after a
 * newer PUT, and a value from the checkpoint has the checkpoint's version; in every order an
 * evicted value stays gone and a newer one stays.
 */
class KeyspaceLoaderTest {
  private static final long NOW = 1_767_225_600_000L;
  private final Keyspace keyspace = new Keyspace(64L << 20, () -> NOW);
  private final KeyspaceLoader loader =
      new KeyspaceLoader(
          keyspace, NOW, LoadProgress.of(java.nio.file.Path.of("absent-directory"), NOW));
  private long sequence;

  @AfterEach
  void close() {
    keyspace.close();
  }

  @Test
  void anEvictionLoggedBeforeThePutOfItsValueRemovesTheKey() {
    records(evict("k", 5), put("k", 5, "five"));
    loader.finish();
    assertNull(keyspace.peek(0, bytes("k")));
  }

  @Test
  void anEvictionAfterThePutOfItsValueRemovesTheKey() {
    records(put("k", 5, "five"), evict("k", 5));
    loader.finish();
    assertNull(keyspace.peek(0, bytes("k")));
  }

  @Test
  void aTouchLoggedAfterTheEvictionOfTheValueItRewroteDoesNotBringItBack() {
    // memcached's touch keeps the version: the put of 5, the touched 5 evicted and logged, then
    // the touch's record of 5.
    records(put("k", 5, "five"), evict("k", 5), put("k", 5, "five"));
    loader.finish();
    assertNull(keyspace.peek(0, bytes("k")));
  }

  @Test
  void anEvictionOfAnOlderValueKeepsTheNewerOneInEitherOrder() {
    records(put("a", 7, "seven"), evict("a", 5));
    records(evict("b", 5), put("b", 7, "seven"));
    loader.finish();
    assertEquals("seven", payload("a"));
    assertEquals("seven", payload("b"));
  }

  @Test
  void anEvictionAfterTheCheckpointRemovesTheCheckpointsValue() {
    loader.checkpointEntry(10, CheckpointBlock.header(100, 2));
    List<byte[]> blocks = new java.util.ArrayList<>();
    CheckpointBlock.Writer writer = new CheckpointBlock.Writer(blocks::add);
    writer.add(stored("k"), value(3, "three"));
    writer.add(stored("j"), value(4, "four"));
    writer.finish();
    blocks.forEach(b -> loader.checkpointEntry(10, b));
    // The checkpoint saw k at version 3; k's eviction is logged after the checkpoint.
    records(evict("k", 3), put("j", 120, "newer"), evict("j", 4));
    loader.finish();
    assertNull(keyspace.peek(0, bytes("k")));
    assertEquals("newer", payload("j"));
  }

  /** The header's key count sizes the store before the first item: no index grows on the way. */
  @Test
  void theCheckpointsKeyCountSizesTheStoreBeforeItsItems() {
    long keys = 100_000;
    loader.checkpointEntry(10, CheckpointBlock.header(100, keys));
    List<byte[]> blocks = new java.util.ArrayList<>();
    CheckpointBlock.Writer writer = new CheckpointBlock.Writer(blocks::add);
    writer.add(stored("k"), value(3, "three"));
    writer.finish();
    blocks.forEach(b -> loader.checkpointEntry(10, b));
    loader.finish();
    assertEquals("three", payload("k"));
    assertTrue(
        keyspace.memoryUsed() > 8 * keys,
        "indexes for " + keys + " keys: " + keyspace.memoryUsed() + " bytes reserved");
  }

  /**
   * Every item of a checkpoint comes back as it was stored, with the header's item version, in its
   * database, unless its expiry has passed: items of several databases, with and without an expiry,
   * flags and a value larger than a store page, over several blocks.
   */
  @Test
  void checkpointItemsComeBackWithTheItemVersionUnlessExpired() {
    loader.checkpointEntry(10, CheckpointBlock.header(1_000, 5_000));
    List<byte[]> blocks = new java.util.ArrayList<>();
    CheckpointBlock.Writer writer = new CheckpointBlock.Writer(blocks::add);
    for (int i = 0; i < 4_000; i++) {
      byte[] key = stored("key:" + i);
      key[0] = (byte) (i % 3);
      long expiry = i % 5 == 0 ? NOW - 1 : i % 5 == 1 ? NOW + 60_000 : 0;
      writer.add(
          key,
          ValueLayout.encode(
              new StoredValue(ValueType.STRING, 7 + i, expiry, i % 7, bytes("value " + i))));
    }
    byte[] large = new byte[200_000];
    java.util.Arrays.fill(large, (byte) 'x');
    writer.add(
        stored("large"), ValueLayout.encode(new StoredValue(ValueType.STRING, 5, 0, 0, large)));
    writer.finish();
    assertTrue(blocks.size() > 2, "blocks " + blocks.size());
    blocks.forEach(b -> loader.checkpointEntry(10, b));
    loader.finish();
    for (int i = 0; i < 4_000; i++) {
      StoredValue v = keyspace.peek(i % 3, bytes("key:" + i));
      if (i % 5 == 0) {
        assertNull(v, "key:" + i + " expired while the server was down");
        continue;
      }
      assertEquals("value " + i, new String(v.payload(), StandardCharsets.UTF_8), "key:" + i);
      assertEquals(1_000, v.version(), "key:" + i);
      assertEquals(i % 5 == 1 ? NOW + 60_000 : 0, v.expiresAtMillis(), "key:" + i);
      assertEquals(i % 7, v.clientFlags(), "key:" + i);
    }
    assertEquals(200_000, keyspace.peek(0, bytes("large")).payload().length);
    assertEquals(3_200, loader.items() - 1);
    assertEquals(800, loader.expiredSkipped());
  }

  private void records(ChangeRecord.Change... changes) {
    for (ChangeRecord.Change c : changes) {
      ChangeRecord.Payload p = new ChangeRecord.Payload(List.of(c));
      byte[] out = new byte[p.length()];
      p.writeTo(out, 0);
      loader.record(++sequence, ChangeRecord.TYPE, out);
    }
  }

  private static ChangeRecord.Change put(String key, long version, String payload) {
    return new ChangeRecord.Change(ChangeRecord.PUT, stored(key), value(version, payload), 0);
  }

  private static ChangeRecord.Change evict(String key, long version) {
    return new ChangeRecord.Change(ChangeRecord.EVICT, stored(key), null, version);
  }

  private static byte[] value(long version, String payload) {
    return ValueLayout.encode(new StoredValue(ValueType.STRING, version, 0, 0, bytes(payload)));
  }

  private static byte[] stored(String key) {
    byte[] k = bytes(key);
    byte[] s = new byte[k.length + 1];
    System.arraycopy(k, 0, s, 1, k.length);
    return s;
  }

  private String payload(String key) {
    StoredValue v = keyspace.peek(0, bytes(key));
    return v == null ? null : new String(v.payload(), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
