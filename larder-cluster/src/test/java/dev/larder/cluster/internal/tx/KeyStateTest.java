package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.tx.internal.StoredValue;
import org.junit.jupiter.api.Test;

/**
 * A key's versions as a reader on another member meets them: below the oldest version a key still
 * keeps, it answers "absent" only if no older version was ever dropped.
 */
class KeyStateTest {

  private static final TxId T1 = new TxId(1, 1);
  private static final TxId T2 = new TxId(1, 2);

  @Test
  void aReadBelowEveryVersionOfAnUntrimmedKeyIsAbsent() throws Exception {
    KeyState k = new KeyState();
    k.addPending(T1, 10, new byte[] {1});
    k.apply(T1, 10, 0);
    assertNull(k.readAt(5, System.nanoTime()));
    assertArrayEquals(StoredValue.wrap(10, new byte[] {1}), k.readAt(10, System.nanoTime()));
  }

  @Test
  void aReadBelowTheVersionsAHorizonKeptFailsInsteadOfAnsweringAbsent() throws Exception {
    KeyState k = new KeyState();
    k.addPending(T1, 10, new byte[] {1});
    k.apply(T1, 10, 0);
    k.addPending(T2, 20, new byte[] {2});
    k.apply(T2, 20, 25); // the horizon drops the version at 10
    assertThrows(SnapshotLostException.class, () -> k.readAt(15, System.nanoTime()));
    assertArrayEquals(StoredValue.wrap(20, new byte[] {2}), k.readAt(21, System.nanoTime()));
  }

  @Test
  void aKeyAdoptedOrRestoredKnowsNothingBelowItsVersion() throws Exception {
    KeyState adopted = new KeyState();
    adopted.reset(30, new byte[] {3});
    assertThrows(SnapshotLostException.class, () -> adopted.readAt(29, System.nanoTime()));
    KeyState restored = new KeyState();
    restored.restore(30, new byte[] {3});
    assertThrows(SnapshotLostException.class, () -> restored.readAt(29, System.nanoTime()));
    KeyState emptied = new KeyState();
    emptied.reset(0, null);
    assertNull(emptied.readAt(29, System.nanoTime()));
  }
}
