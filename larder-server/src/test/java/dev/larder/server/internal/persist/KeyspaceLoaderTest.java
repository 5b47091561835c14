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
  private final KeyspaceLoader loader = new KeyspaceLoader(keyspace, NOW);
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
