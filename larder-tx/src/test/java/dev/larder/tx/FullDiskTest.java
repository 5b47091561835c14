package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.wal.FileLayer;
import dev.larder.wal.WalConfig;
import dev.larder.wal.testing.HookedFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A disk that is full when a store with a checkpoint is reopened: the error must say which file and
 * which operation failed, not only "No space left on device". Then, with room again, the store
 * opens with everything.
 */
@Timeout(60)
class FullDiskTest {

  static final TxCacheSpec<String, Long> KEYS =
      TxCacheSpec.of("keys", Codecs.strings(), Codecs.longs());

  @TempDir Path dir;

  private TxStore open(FileLayer files) {
    return TxStore.builder()
        .cache(KEYS)
        .persistence(WalConfig.of(dir).withFiles(files))
        .checkpointEvery(Duration.ZERO)
        .build();
  }

  private void fill() {
    try (TxStore store = open(FileLayer.standard())) {
      for (long i = 0; i < 100; i++) {
        store.cache(KEYS).put("k" + i, i);
      }
      store.checkpoint();
      store.cache(KEYS).put("after", 1L);
    }
  }

  private static IOException full() {
    return new IOException("No space left on device");
  }

  @Test
  void aWriteRefusedOnReopenNamesTheFileAndTheWrite() {
    fill();
    UncheckedIOException e =
        assertThrows(
            UncheckedIOException.class,
            () ->
                open(
                    new HookedFiles(
                        FileLayer.standard(),
                        position -> {
                          throw full();
                        },
                        HookedFiles.NONE)));
    String message = e.getMessage();
    assertTrue(message.contains("No space left on device"), message);
    assertTrue(message.contains(dir.resolve("log-").toString()), message);
    assertTrue(message.contains(".wal"), message);
    assertTrue(message.contains("write"), message);
    reopensWithEverything();
  }

  @Test
  void aForceRefusedOnReopenNamesTheFileAndTheForce() {
    fill();
    UncheckedIOException e =
        assertThrows(
            UncheckedIOException.class,
            () ->
                open(
                    new HookedFiles(
                        FileLayer.standard(),
                        HookedFiles.NONE,
                        position -> {
                          throw full();
                        })));
    String message = e.getMessage();
    assertTrue(message.contains("No space left on device"), message);
    assertTrue(message.contains(dir.resolve("log-").toString()), message);
    assertTrue(message.contains("force"), message);
    reopensWithEverything();
  }

  /**
   * A checkpoint on a full disk fails saying which file it could not write (the log's new segment,
   * started first); what was committed before is all there after a reopen.
   */
  @Test
  void aCheckpointRefusedNamesTheFileItCouldNotWrite() {
    AtomicBoolean diskFull = new AtomicBoolean();
    HookedFiles.Hook write =
        position -> {
          if (diskFull.get()) {
            throw full();
          }
        };
    TxStore store = open(new HookedFiles(FileLayer.standard(), write, HookedFiles.NONE));
    store.cache(KEYS).put("a", 1L);
    diskFull.set(true);
    UncheckedIOException e = assertThrows(UncheckedIOException.class, store::checkpoint);
    assertTrue(e.getMessage().contains(dir.resolve("log-").toString()), e.getMessage());
    assertTrue(e.getMessage().contains("write"), e.getMessage());
    assertTrue(e.getMessage().contains("No space left on device"), e.getMessage());
    // The log refuses further work once a write failed; closing it says so again.
    assertThrows(UncheckedIOException.class, store::close);
    try (TxStore reopened = open(FileLayer.standard())) {
      assertEquals(1L, reopened.cache(KEYS).get("a"));
    }
  }

  /** A commit that cannot be written says which file; it is in doubt, the store stops. */
  @Test
  void aCommitRefusedNamesTheFileAndTheWrite() {
    AtomicBoolean diskFull = new AtomicBoolean();
    HookedFiles.Hook write =
        position -> {
          if (diskFull.get()) {
            throw full();
          }
        };
    TxStore store = open(new HookedFiles(FileLayer.standard(), write, HookedFiles.NONE));
    store.cache(KEYS).put("a", 1L);
    diskFull.set(true);
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> store.cache(KEYS).put("b", 2L));
    assertTrue(e.getMessage().contains("in doubt"), e.getMessage());
    assertTrue(e.getMessage().contains(dir.resolve("log-").toString()), e.getMessage());
    assertTrue(e.getMessage().contains("cannot write"), e.getMessage());
    assertTrue(e.getMessage().contains("No space left on device"), e.getMessage());
    assertThrows(UncheckedIOException.class, store::close);
    try (TxStore reopened = open(FileLayer.standard())) {
      assertEquals(1L, reopened.cache(KEYS).get("a"));
    }
  }

  private void reopensWithEverything() {
    try (TxStore store = open(FileLayer.standard())) {
      assertTrue(
          store.recovery().orElseThrow().problems().isEmpty(),
          store.recovery().orElseThrow().problems().toString());
      assertEquals(99L, store.cache(KEYS).get("k99"));
      assertEquals(1L, store.cache(KEYS).get("after"));
    }
  }
}
