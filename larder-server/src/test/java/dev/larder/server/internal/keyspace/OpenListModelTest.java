package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * An open list against the store's path: one seeded sequence of random commands (LPUSH and RPUSH of
 * batches, LPOP and RPOP with counts, LSET, LTRIM, an LINSERT and an LREM segment by segment as the
 * commands walk, LRANGE, LINDEX, LLEN) run on two keyspaces, one whose list opens at its first
 * change in the chunked form and is closed now and then, one with the tier off. Every command's
 * reply must be the same on both, and so must the whole list and the chunks the store holds once
 * both are closed.
 */
class OpenListModelTest {
  private static final byte[] KEY = b("list");
  private final AtomicLong now = new AtomicLong(1_000_000);

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  private static String text(List<byte[]> elements) {
    StringBuilder out = new StringBuilder();
    for (byte[] e : elements) {
      out.append(s(e)).append(' ');
    }
    return out.toString();
  }

  private static String element(Random random) {
    int n = random.nextInt(5_000);
    return n % 41 == 3 ? "long:" + n + "z".repeat(90) : "element:" + n;
  }

  /** A command: whether it may change the list (so it runs as a change), and what it does. */
  private record Command(boolean writes, Function<ListBody, String> run) {}

  private static Command command(Random random, int size, boolean growing) {
    int op = random.nextInt(100);
    if (op < (growing ? 50 : 20)) {
      List<byte[]> batch = new ArrayList<>();
      for (int i = random.nextInt(growing ? 60 : 5); i >= 0; i--) {
        batch.add(b(element(random)));
      }
      boolean head = random.nextBoolean();
      return new Command(
          true,
          l -> {
            if (head) {
              l.pushHead(batch);
            } else {
              l.pushTail(batch);
            }
            return "push " + l.size();
          });
    }
    if (op < (growing ? 65 : 60)) {
      int count = 1 + random.nextInt(random.nextInt(8) == 0 ? 400 : 5);
      boolean head = random.nextBoolean();
      return new Command(
          true, l -> "pop " + text(head ? l.popHead(count) : l.popTail(count)) + l.size());
    }
    if (op < 70 && size > 0) {
      int at = random.nextInt(size);
      byte[] e = b(element(random));
      return new Command(
          true,
          l -> {
            if (at >= l.size()) {
              return "lset out of range";
            }
            l.set(at, e);
            return "lset ok";
          });
    }
    if (op < 72 && size > 0) {
      int start = random.nextInt(Math.max(1, size / 20));
      int stop = size - 1 - random.nextInt(Math.max(1, size / 20));
      return new Command(
          true,
          l -> {
            if (start > stop || stop >= l.size()) {
              return "ltrim skipped";
            }
            l.trim(start, stop);
            return "ltrim " + l.size();
          });
    }
    if (op < 76) {
      // LINSERT BEFORE a pivot: the first segment holding it is replaced
      byte[] pivot = b(element(random));
      byte[] e = b(element(random));
      return new Command(
          true,
          l -> {
            for (int i = 0; i < l.segmentCount(); i++) {
              List<byte[]> elements = l.segmentElements(i);
              for (int j = 0; j < elements.size(); j++) {
                if (s(elements.get(j)).equals(s(pivot))) {
                  elements.add(j, e);
                  l.replaceSegment(i, elements);
                  return "linsert " + l.size();
                }
              }
            }
            return "linsert -1";
          });
    }
    if (op < 80) {
      // LREM 0: every segment holding the element is replaced (or removed when emptied)
      String gone = element(random);
      return new Command(
          true,
          l -> {
            int removed = 0;
            for (int i = 0; i < l.segmentCount(); i++) {
              List<byte[]> elements = l.segmentElements(i);
              int before = elements.size();
              elements.removeIf(x -> s(x).equals(gone));
              if (elements.size() != before) {
                removed += before - elements.size();
                l.replaceSegment(i, elements);
                if (elements.isEmpty()) {
                  i--;
                }
              }
            }
            return "lrem " + removed;
          });
    }
    int from = size == 0 ? 0 : random.nextInt(size);
    int length = random.nextInt(120);
    return new Command(
        false,
        l -> {
          int n = l.size();
          if (n == 0) {
            return "empty";
          }
          int start = Math.min(from, n - 1);
          int stop = Math.min(n - 1, start + length);
          return "lrange " + text(l.range(start, stop)) + " lindex " + s(l.get(stop)) + " " + n;
        });
  }

  private static String run(Keyspace ks, boolean write, Function<ListBody, String> command) {
    ListStore.Edit<String> edit = (before, l) -> l == null ? "none" : command.apply(l);
    return write ? ks.editList(0, KEY, edit) : ks.readList(0, KEY, edit);
  }

  private static String whole(Keyspace ks) {
    return ks.readList(0, KEY, (before, l) -> l == null ? "" : text(l.all()));
  }

  @Test
  void anOpenListAnswersAsTheStoreDoesAndClosesToTheSameList() {
    Random random = new Random(2026_12_01L);
    try (Keyspace open = new Keyspace(64 << 20, now::get);
        Keyspace stored = new Keyspace(64 << 20, now::get)) {
      open.openCollections().openAfter(1);
      stored.openCollections(false);
      int opened = 0;
      boolean wasChunked = false;
      boolean sawPackedAgain = false;
      for (int step = 0; step < 4_000; step++) {
        boolean growing = step % 1_000 < 600;
        int size = stored.readList(0, KEY, (before, l) -> l == null ? 0 : l.size());
        Command command = command(random, size, growing);
        // a read runs as a read or as a change that changes nothing
        boolean write = command.writes() || random.nextInt(4) == 0;
        String want = run(stored, write, command.run());
        String got = run(open, write, command.run());
        assertEquals(want, got, step + ": the same reply");
        opened += open.openCollectionStats()[0] > 0 ? 1 : 0;
        if (step % 97 == 0) {
          assertEquals(whole(stored), whole(open), step + ": the same list");
        }
        if (random.nextInt(150) == 0) {
          open.closeOpenCollections();
          assertEquals(0, ChunkCensus.of(open).orphans(), step + ": no chunk unnamed");
          assertEquals(whole(stored), whole(open), step + ": the same list once closed");
          assertHeadDescribesItsChunks(open, step + ": once closed");
        }
        StoredValue head = stored.peekHeader(0, KEY);
        boolean chunked = head != null && ListChunks.isHead(head.payload());
        sawPackedAgain |= wasChunked && head != null && !chunked;
        wasChunked |= chunked;
      }
      assertTrue(opened > 1_500, "the list was open for most commands: " + opened);
      assertTrue(wasChunked, "the sequence made a chunked list");
      assertTrue(sawPackedAgain, "the sequence shrank a chunked list into the packed form");
      open.closeOpenCollections();
      assertEquals(0, open.openCollectionStats()[0], "closed");
      assertEquals(whole(stored), whole(open), "the stores hold the same list");
      assertEquals(0, ChunkCensus.of(open).orphans(), "no chunk unnamed");
      assertEquals(0, ChunkCensus.of(stored).orphans());
      assertHeadDescribesItsChunks(open, "at the end");
    }
  }

  /**
   * Every count and byte size a chunked list's head (and its index pages) gives is its chunk's as
   * the store path reads it (encoding 3): an open list holds its chunks in another encoding, and
   * what it writes back must not carry that encoding's sizes into the head.
   */
  private static void assertHeadDescribesItsChunks(Keyspace ks, String when) {
    StoredValue head = ks.peekHeader(0, KEY);
    if (head == null || !ListChunks.isHead(head.payload())) {
      return;
    }
    byte[] headKey = Keyspace.storedKey(0, KEY);
    ListChunks.Index index = ListChunks.Index.decode(head.payload());
    for (int i = 0; i < index.entries(); i++) {
      if (!index.isPage(i)) {
        assertChunkIs(ks, headKey, index.id(), index, i, when);
        continue;
      }
      byte[] page = ChunkCensus.storedPayload(ks, headKey, index.id(), index.number(i));
      ListChunks.Index listed = ListChunks.Index.decodePage(page, index.nextNumber());
      for (int k = 0; k < listed.entries(); k++) {
        assertChunkIs(ks, headKey, index.id(), listed, k, when);
      }
    }
  }

  private static void assertChunkIs(
      Keyspace ks, byte[] headKey, long id, ListChunks.Index index, int i, String when) {
    byte[] chunk =
        ListPayload.loadedChunk(ChunkCensus.storedPayload(ks, headKey, id, index.number(i)));
    assertEquals(ListPayload.count(chunk), index.count(i), when + ": chunk " + index.number(i));
    assertEquals(chunk.length, index.bytes(i), when + ": bytes of chunk " + index.number(i));
  }
}
