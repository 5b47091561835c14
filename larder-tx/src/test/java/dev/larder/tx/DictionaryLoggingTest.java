package dev.larder.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Value dictionary additions are logged and checkpointed, so ids decode alike after restarts. */
@Timeout(60)
class DictionaryLoggingTest {

  @TempDir Path dir;

  /** A fresh dictionary and a spec whose values are lists of substituted mimetypes. */
  private record Setup(ValueDictionary dictionary, TxCacheSpec<String, List<String>> spec) {
    static Setup create() {
      ValueDictionary dictionary = ValueDictionary.builder().build();
      Codec<String> mimetype =
          dictionary.substitute("mimetype", Codecs.strings(), ValueDictionary.Mode.ALWAYS);
      return new Setup(dictionary, TxCacheSpec.of("docs", Codecs.strings(), Codecs.list(mimetype)));
    }

    TxStore open(Path dir) {
      return TxStore.builder()
          .cache(spec)
          .dictionary(dictionary)
          .persistence(dir)
          .checkpointEvery(Duration.ZERO)
          .build();
    }
  }

  @Test
  void idsMeanTheSameAfterReopenFromLogAndFromCheckpoint() {
    Setup first = Setup.create();
    try (TxStore store = first.open(dir)) {
      TxCache<String, List<String>> docs = store.cache(first.spec());
      docs.put("a", List.of("text/plain", "image/png"));
      docs.put("b", List.of("image/png", "application/pdf"));
      assertEquals(3, first.dictionary().size());
    }
    Setup second = Setup.create();
    try (TxStore store = second.open(dir)) {
      TxCache<String, List<String>> docs = store.cache(second.spec());
      assertEquals(3, second.dictionary().size());
      assertEquals(List.of("text/plain", "image/png"), docs.get("a"));
      assertEquals(List.of("image/png", "application/pdf"), docs.get("b"));
      docs.put("c", List.of("text/html"));
      store.checkpoint();
      docs.put("d", List.of("text/css", "text/plain"));
    }
    Setup third = Setup.create();
    try (TxStore store = third.open(dir)) {
      TxCache<String, List<String>> docs = store.cache(third.spec());
      assertTrue(store.recovery().orElseThrow().checkpointSequence() > 0);
      assertEquals(5, third.dictionary().size());
      assertEquals(List.of("text/html"), docs.get("c"));
      assertEquals(List.of("text/css", "text/plain"), docs.get("d"));
      assertEquals(List.of("image/png", "application/pdf"), docs.get("b"));
    }
  }

  @Test
  void aDictionaryUsedBeforeTheStoreIsRefused() {
    Setup setup = Setup.create();
    Codecs.list(
            setup
                .dictionary()
                .substitute("mimetype", Codecs.strings(), ValueDictionary.Mode.ALWAYS))
        .encode(List.of("x/y"), new dev.larder.codec.ByteSink());
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> setup.open(dir));
    assertTrue(e.getMessage().contains("fresh"), e.getMessage());
  }
}
