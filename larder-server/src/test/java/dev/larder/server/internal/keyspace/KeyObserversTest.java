package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The keyspace's one observer, fanned out: each observer hears every kind of change, in the order
 * the observers were given, for every kind of write (update, put, putString, delete, expiry,
 * flush).
 */
class KeyObserversTest {
  /** Records what it hears as text, tagged with its name. */
  private record Recorder(String name, List<String> heard) implements KeyObserver {
    @Override
    public void changed(byte[] storedKey, int how) {
      heard.add(name + " changed " + text(storedKey) + " " + how);
    }

    @Override
    public void expired(byte[] storedKey) {
      heard.add(name + " expired " + text(storedKey));
    }

    @Override
    public void evicted(byte[] storedKey) {
      heard.add(name + " evicted " + text(storedKey));
    }

    @Override
    public void flushed(int db) {
      heard.add(name + " flushed " + db);
    }

    private static String text(byte[] storedKey) {
      return storedKey[0]
          + ":"
          + new String(storedKey, 1, storedKey.length - 1, StandardCharsets.UTF_8);
    }
  }

  /** Hears nothing, and wants creations or not. */
  private record Wanting(boolean wantsCreations) implements KeyObserver {
    @Override
    public void changed(byte[] storedKey, int how) {}

    @Override
    public void expired(byte[] storedKey) {}

    @Override
    public void evicted(byte[] storedKey) {}

    @Override
    public void flushed(int db) {}
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void everyObserverHearsEveryChangeInOrder() {
    long[] now = {1_000_000};
    List<String> heard = new ArrayList<>();
    try (Keyspace ks = new Keyspace(4 << 20, () -> now[0])) {
      ks.observe(KeyObservers.of(new Recorder("a", heard), new Recorder("b", heard)));
      ks.putString(0, b("s"), b("v"));
      ks.put(1, b("e"), StoredValue.string(b("v")).withExpiry(now[0] + 10));
      ks.update(0, b("s"), before -> before);
      ks.update(0, b("s"), before -> before.withPayload(b("w")));
      ks.delete(0, b("s"));
      now[0] += 20;
      ks.peek(1, b("e"));
      ks.flush(2);
      assertEquals(
          List.of(
              "a changed 0:s 0",
              "b changed 0:s 0",
              "a changed 1:e " + KeyObserver.EXPIRY_SET,
              "b changed 1:e " + KeyObserver.EXPIRY_SET,
              "a changed 0:s 0",
              "b changed 0:s 0",
              "a changed 0:s " + KeyObserver.REMOVED,
              "b changed 0:s " + KeyObserver.REMOVED,
              "a expired 1:e",
              "b expired 1:e",
              "a flushed 2",
              "b flushed 2"),
          heard);
    }
  }

  @Test
  void oneObserverIsItselfAndNoneIsRefused() {
    KeyObserver one = new Recorder("a", new ArrayList<>());
    assertSame(one, KeyObservers.of(one));
    assertThrows(NullPointerException.class, () -> KeyObservers.of(one, null));
  }

  @Test
  void fiveObserversAreToldInOrderOfEveryKindOfChange() {
    List<String> heard = new ArrayList<>();
    List<String> names = List.of("a", "b", "c", "d", "e");
    KeyObserver all =
        KeyObservers.of(
            names.stream().map(n -> new Recorder(n, heard)).toArray(KeyObserver[]::new));
    all.changed(new byte[] {0, 'k'}, KeyObserver.CREATED);
    all.expired(new byte[] {1, 'k'});
    all.evicted(new byte[] {2, 'k'});
    all.flushed(3);
    List<String> expected = new ArrayList<>();
    for (String what :
        List.of("changed 0:k " + KeyObserver.CREATED, "expired 1:k", "evicted 2:k", "flushed 3")) {
      for (String n : names) {
        expected.add(n + " " + what);
      }
    }
    assertEquals(expected, heard);
  }

  @Test
  void creationsAreWantedIfAnyObserverWantsThemWhereverItIs() {
    for (int observers = 2; observers <= 5; observers++) {
      for (int wanting = -1; wanting < observers; wanting++) {
        KeyObserver[] list = new KeyObserver[observers];
        for (int i = 0; i < observers; i++) {
          list[i] = new Wanting(i == wanting);
        }
        assertEquals(
            wanting >= 0,
            KeyObservers.of(list).wantsCreations(),
            observers + " observers, wanting " + wanting);
      }
    }
  }

  @Test
  void noObserversIsTheObserverThatIgnoresEverything() {
    assertSame(KeyObserver.NONE, KeyObservers.of());
  }
}
