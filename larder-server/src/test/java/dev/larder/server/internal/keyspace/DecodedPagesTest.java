package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class DecodedPagesTest {
  private static final byte[] KEY =
      Keyspace.storedKey(0, "set".getBytes(StandardCharsets.ISO_8859_1));

  @Test
  void aPageIsFoundOnlyUnderItsHeadKeyIdAndNumber() {
    DecodedPages<String> pages = new DecodedPages<>();
    pages.put(KEY, 7, 3, "page 3");
    assertEquals("page 3", pages.get(KEY, 7, 3));
    assertNull(pages.get(KEY, 7, 4));
    assertNull(pages.get(KEY, 8, 3));
    assertNull(pages.get(Keyspace.storedKey(1, "set".getBytes(StandardCharsets.ISO_8859_1)), 7, 3));
    assertNull(
        pages.get(Keyspace.storedKey(0, "other".getBytes(StandardCharsets.ISO_8859_1)), 7, 3));
  }

  @Test
  void theHeadKeyIsCopiedSoACallersBufferCannotChangeWhatItNames() {
    DecodedPages<String> pages = new DecodedPages<>();
    byte[] key = KEY.clone();
    pages.put(key, 7, 3, "page 3");
    key[key.length - 1] = 'x';
    assertEquals("page 3", pages.get(KEY, 7, 3));
    assertNull(pages.get(key, 7, 3));
  }

  @Test
  void itHoldsAtMostItsSlotsAndANewerPageReplacesAnOlderOneInItsSlot() {
    DecodedPages<Integer> pages = new DecodedPages<>();
    int pagesPut = DecodedPages.SLOTS * 8;
    for (int n = 0; n < pagesPut; n++) {
      pages.put(KEY, 1, n, n);
    }
    int held = 0;
    for (int n = 0; n < pagesPut; n++) {
      Integer page = pages.get(KEY, 1, n);
      if (page != null) {
        assertEquals(n, page);
        held++;
      }
    }
    assertTrue(held <= DecodedPages.SLOTS, held + " pages held");
    // the last page put is always found: it replaced whatever held its slot
    assertEquals(pagesPut - 1, pages.get(KEY, 1, pagesPut - 1));
  }

  @Test
  @Timeout(60)
  void readersOnOtherThreadsSeeAPageWhole() throws InterruptedException, ExecutionException {
    DecodedPages<List<Integer>> pages = new DecodedPages<>();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> writer =
          pool.submit(
              () -> {
                for (int n = 0; n < 20_000; n++) {
                  pages.put(KEY, 1, n % 16, List.of(n, n, n));
                }
              });
      Future<Integer> reader =
          pool.submit(
              () -> {
                int seen = 0;
                for (int i = 0; i < 20_000; i++) {
                  List<Integer> page = pages.get(KEY, 1, i % 16);
                  if (page != null) {
                    assertEquals(3, page.size());
                    assertEquals(page.get(0), page.get(2));
                    assertEquals(i % 16, page.get(0) % 16);
                    seen++;
                  }
                }
                return seen;
              });
      writer.get(50, TimeUnit.SECONDS);
      reader.get(50, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("the threads did not finish in 50 s", e);
    } finally {
      pool.shutdownNow();
    }
    List<Integer> last = pages.get(KEY, 1, 19_999 % 16);
    assertSame(last, pages.get(KEY, 1, 19_999 % 16));
    assertEquals(new ArrayList<>(List.of(19_999, 19_999, 19_999)), last);
  }
}
