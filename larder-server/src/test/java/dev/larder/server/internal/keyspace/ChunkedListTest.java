package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Lists in the keyspace across their two forms: random list operations checked against a model
 * list, the form and the store's chunk entries checked after each; the keyspace's other paths (DEL,
 * SET, EXPIRE and the sweep, FLUSHDB, a rename, walks) on a chunked list; and eviction, which takes
 * a chunked list whole.
 */
class ChunkedListTest {
  private final AtomicLong now = new AtomicLong(1_000_000);

  /**
   * A keyspace for these tests: each list opens (see {@link OpenCollections}) at its first change
   * in the chunked form, so that commands run on an open list; {@link ChunkedListTierOffTest} runs
   * them with the tier off. A test that looks at the store's entries closes the tier first.
   */
  Keyspace keyspace(long maxMemory) {
    Keyspace ks = new Keyspace(maxMemory, now::get);
    ks.openCollections().openAfter(1);
    return ks;
  }

  private static final byte[] KEY = b("list");

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<byte[]> elements(Random random, int n, int salt) {
    List<byte[]> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int length = random.nextInt(20) == 0 ? 200 + random.nextInt(400) : random.nextInt(16);
      byte[] e = new byte[length];
      random.nextBytes(e);
      if (length > 0) {
        e[0] = (byte) (salt + i); // so that LREM and LINSERT find something now and then
      }
      out.add(random.nextInt(8) == 0 ? b("pivot") : e);
    }
    return out;
  }

  private static List<byte[]> contents(Keyspace ks) {
    List<byte[]> read = ks.readList(0, KEY, (before, list) -> list == null ? null : list.all());
    return read == null ? List.of() : read;
  }

  private static void assertSame(List<byte[]> model, List<byte[]> actual, String step) {
    assertEquals(model.size(), actual.size(), step + ": size");
    for (int i = 0; i < model.size(); i++) {
      assertTrue(Arrays.equals(model.get(i), actual.get(i)), step + ": element " + i);
    }
  }

  /** Pushes the elements at the list's tail, as one command. */
  private static void pushTail(Keyspace ks, List<byte[]> elements) {
    push(ks, elements, false);
  }

  /** Pushes the elements at the list's head, as one command. */
  private static void pushHead(Keyspace ks, List<byte[]> elements) {
    push(ks, elements, true);
  }

  private static void push(Keyspace ks, List<byte[]> elements, boolean atHead) {
    ks.editList(
        0,
        KEY,
        (before, list) -> {
          if (atHead) {
            list.pushHead(elements);
          } else {
            list.pushTail(elements);
          }
          return null;
        });
  }

  /** Chunk entries in the store, by whether their collection's head names them. */
  private static int[] chunkEntries(Keyspace ks) {
    return ChunkCensus.of(ks).asArray();
  }

  private static boolean chunked(Keyspace ks) {
    StoredValue v = ks.peekHeader(0, KEY);
    return v != null && ListChunks.isHead(v.payload());
  }

  @Test
  void randomOperationsMatchAModelAcrossBothForms() {
    Random random = new Random(2026);
    try (Keyspace ks = keyspace(64 << 20)) {
      List<byte[]> model = new ArrayList<>();
      boolean sawChunked = false;
      boolean sawPackedAfterChunked = false;
      for (int step = 0; step < 3_000; step++) {
        String name = apply(ks, model, random, step);
        assertSame(model, contents(ks), step + " " + name);
        boolean isChunked = chunked(ks);
        sawPackedAfterChunked |= sawChunked && !isChunked && !model.isEmpty();
        sawChunked |= isChunked;
        int[] entries = chunkEntries(ks);
        assertEquals(0, entries[1], step + " " + name + ": chunks no head names");
        if (!isChunked) {
          assertEquals(0, entries[0], step + " " + name + ": a packed list has no chunks");
        }
        assertEquals(model.isEmpty() ? 0 : 1, ks.size(0), "one key, whatever its chunks");
      }
      assertTrue(sawChunked, "the list grew into the chunked form");
      assertTrue(sawPackedAfterChunked, "and shrank back into the packed one");
    }
  }

  @Test
  void pagedListsMatchAModel() {
    Random random = new Random(37);
    try (Keyspace ks = keyspace(64 << 20)) {
      List<byte[]> model = new ArrayList<>();
      for (int batch = 0; batch < 30; batch++) {
        List<byte[]> add = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
          add.add(b(String.format("%0100d", batch * 100 + i)));
        }
        pushTail(ks, add);
        model.addAll(add);
      }
      boolean sawPages = false;
      for (int step = 0; step < 400; step++) {
        String name = apply(ks, model, random, step);
        assertSame(model, contents(ks), step + " " + name);
        int[] entries = chunkEntries(ks);
        assertEquals(0, entries[1], step + " " + name + ": chunks no head names");
        sawPages |= headPages(ks) > 0;
      }
      assertTrue(sawPages, "the head listed chunks in index pages");
    }
  }

  @Test
  void aPushRewritesItsEndChunkAndAHeadOfAFewEntries() {
    try (Keyspace ks = keyspace(64 << 20)) {
      ks.openCollections(false); // the store's path: an open list writes nothing per push
      byte[] element = new byte[100];
      for (int i = 0; i < 20_000; i++) {
        pushHead(ks, List.of(element));
      }
      byte[] head = ks.store().getIfPresent(Keyspace.storedKey(0, KEY));
      // 500 chunks: an index of every chunk was 3 KB.
      assertTrue(head.length < 400, "head of " + head.length + " bytes");
      assertTrue(headPages(ks) > 0);
      Map<String, Long> before = chunkVersions(ks);
      ks.editList(
          0,
          KEY,
          (b, list) -> {
            list.pushHead(List.of(element));
            return null;
          });
      Map<String, Long> after = chunkVersions(ks);
      assertEquals(before.keySet(), after.keySet(), "no chunk or page added or removed");
      int changed = 0;
      for (Map.Entry<String, Long> e : after.entrySet()) {
        changed += e.getValue().equals(before.get(e.getKey())) ? 0 : 1;
      }
      assertEquals(1, changed, "one chunk written: the end one");
      Integer size = ks.readList(0, KEY, (b, list) -> list.size());
      assertEquals(20_001, size);
    }
  }

  /**
   * Elements that share prefixes (as {@code element:i} do) are stored front-coded, chunk by chunk,
   * and read back the same through every path; random elements stay in encoding 3.
   */
  @Test
  void chunksAreStoredFrontCodedWhenThatIsShorter() {
    try (Keyspace ks = keyspace(64 << 20)) {
      List<byte[]> model = new ArrayList<>();
      for (int from = 0; from < 20_000; from += 1_000) {
        List<byte[]> add = new ArrayList<>();
        for (int i = from; i < from + 1_000; i++) {
          add.add(b("element:" + i));
        }
        pushTail(ks, add);
        model.addAll(add);
      }
      assertSame(model, contents(ks), "read back");
      int chunks = 0;
      int plain = 0;
      long stored = 0;
      for (Map.Entry<byte[], byte[]> e : ks.store().asMap().entrySet()) {
        if (!ChunkKey.isChunkKey(e.getKey())) {
          continue;
        }
        byte[] payload = ValueLayout.decode(e.getValue()).payload();
        if (payload[0] == ListPayload.CHUNK || payload[0] == ListPayload.CHUNK_FRONT) {
          chunks++;
          stored += payload.length;
          if (payload[0] == ListPayload.CHUNK) {
            plain++;
          }
        }
      }
      assertTrue(chunks > 2);
      // below the size at which a list's end chunks are stored plain: every chunk front-coded
      assertEquals(0, plain, "plain chunks among " + chunks);
      // 14.4 bytes an element in encoding 3; the elements differ in their last digits
      assertTrue(stored < 5L * model.size(), stored + " bytes for " + model.size() + " elements");
      // changes in the middle and at both ends read and write front-coded chunks
      ks.editList(
          0,
          KEY,
          (before, list) -> {
            list.set(10_000, b("changed"));
            return null;
          });
      model.set(10_000, b("changed"));
      ks.editList(
          0,
          KEY,
          (before, list) -> {
            list.popHead(3);
            list.popTail(3);
            list.pushHead(List.of(b("element:head")));
            return null;
          });
      model.subList(0, 3).clear();
      model.subList(model.size() - 3, model.size()).clear();
      model.addFirst(b("element:head"));
      assertSame(model, contents(ks), "after changes");
      assertEquals(0, chunkEntries(ks)[1], "no orphan chunk");
    }
  }

  /**
   * A list of at least {@link ListBody#PLAIN_ENDS_MIN} bytes stores its two end chunks plain and
   * every other chunk front-coded, including each end chunk a push left behind; shrunk below that
   * size, a rewritten end chunk is front-coded again.
   */
  @Test
  void aLargeListStoresItsEndChunksPlainAndTheRestFrontCoded() {
    try (Keyspace ks = keyspace(256 << 20)) {
      List<byte[]> model = new ArrayList<>();
      int i = 0;
      // an open list counts its chunks as held, with backlens: a margin over the threshold
      while (listBytes(ks) < ListBody.PLAIN_ENDS_MIN * 5 / 4) {
        List<byte[]> add = new ArrayList<>();
        for (int k = 0; k < 500; k++, i++) {
          add.add(b("element:" + i));
        }
        pushTail(ks, add);
        model.addAll(add);
        // single pushes at the head too, of 200-byte elements: a head chunk fills every 20 or so,
        // and each new one leaves the old one behind
        byte[] one = b("head:" + i + ":" + "x".repeat(200));
        pushHead(ks, List.of(one));
        model.addFirst(one);
      }
      assertSame(model, contents(ks), "read back");
      ks.closeOpenCollections(); // what the store holds, not an open copy
      ListChunks.Index head = ListChunks.Index.decode(ks.peekHeader(0, KEY).payload());
      int first = head.number(0);
      int last = head.number(head.entries() - 1);
      assertFalse(head.isPage(0) || head.isPage(head.entries() - 1), "the head lists its ends");
      byte[] headKey = Keyspace.storedKey(0, KEY);
      for (int end : new int[] {first, last}) {
        byte[] chunk = ChunkCensus.storedPayload(ks, headKey, head.id(), end);
        assertEquals(ListPayload.CHUNK, chunk[0], "end chunk " + end + " plain");
      }
      int[] plainAndChunks = plainChunks(ks, Set.of(first, last));
      assertTrue(plainAndChunks[1] > 100, "chunks: " + plainAndChunks[1]);
      assertEquals(0, plainAndChunks[0], "inner chunks plain among " + plainAndChunks[1]);
      // popped below the size: the end chunks rewritten by the pops are front-coded again
      int drop = model.size() - 30_000;
      ks.editList(
          0,
          KEY,
          (before, list) -> {
            list.popTail(drop);
            list.popHead(1);
            return null;
          });
      model.subList(model.size() - drop, model.size()).clear();
      model.removeFirst();
      assertSame(model, contents(ks), "after the pops");
      assertTrue(listBytes(ks) < ListBody.PLAIN_ENDS_MIN);
      ks.closeOpenCollections();
      assertEquals(0, plainChunks(ks, Set.of())[0], "plain chunks once small");
      assertEquals(0, chunkEntries(ks)[1], "no orphan chunk");
    }
  }

  /** The list's payload bytes, as its body counts them (0 when absent). */
  private static long listBytes(Keyspace ks) {
    Long bytes = ks.readList(0, KEY, (before, list) -> list == null ? 0L : list.bytes());
    return bytes == null ? 0 : bytes;
  }

  /**
   * Of the list's stored chunks but those numbered in {@code except}: how many are stored plain
   * (encoding 3) although front-coded they would be shorter, and how many there are.
   */
  @SuppressWarnings("ReferenceEquality") // storedChunk hands back the very array when it keeps it
  private static int[] plainChunks(Keyspace ks, Set<Integer> except) {
    int plain = 0;
    int chunks = 0;
    for (Map.Entry<byte[], byte[]> e : ks.store().asMap().entrySet()) {
      if (!ChunkKey.isChunkKey(e.getKey()) || except.contains(ChunkKey.numberOf(e.getKey()))) {
        continue;
      }
      byte[] payload = ValueLayout.decode(e.getValue()).payload();
      if (payload[0] == ListPayload.CHUNK || payload[0] == ListPayload.CHUNK_FRONT) {
        chunks++;
        // storedChunk returns the chunk itself when front coding would not be shorter
        if (payload[0] == ListPayload.CHUNK && ListPayload.storedChunk(payload) != payload) {
          plain++;
        }
      }
    }
    return new int[] {plain, chunks};
  }

  @Test
  void aListWithAMissingIndexPageIsAbsentAndGoesWhole() {
    try (Keyspace ks = keyspace(64 << 20)) {
      List<byte[]> add = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        add.add(b(String.format("%0100d", i)));
      }
      pushTail(ks, add);
      assertTrue(headPages(ks) > 0);
      byte[] head = ks.store().getIfPresent(Keyspace.storedKey(0, KEY));
      ListChunks.Index index =
          ListChunks.Index.decode(
              Arrays.copyOfRange(head, ValueLayout.header(head).payloadOffset(), head.length));
      int page = 0;
      while (!index.isPage(page)) {
        page++;
      }
      ks.store()
          .invalidate(ChunkKey.of(Keyspace.storedKey(0, KEY), index.id(), index.number(page)));
      if (!ks.opensCollections()) {
        // On the store's path the ends are readable without the page (a read that opens the list
        // reads every page, and finds it broken at once).
        assertEquals(
            b(String.format("%0100d", 0)).length, ks.readList(0, KEY, (b, l) -> l.get(0)).length);
      }
      // A read that reaches the page finds the list broken.
      assertNull(ks.readList(0, KEY, (before, list) -> list == null ? null : list.all()));
      assertEquals(0, ks.estimatedSize(), "the head and every chunk went with it");
    }
  }

  /** The version of every chunk and index page in the store, by its key in hex. */
  private static Map<String, Long> chunkVersions(Keyspace ks) {
    Map<String, Long> versions = new java.util.HashMap<>();
    for (Map.Entry<byte[], byte[]> e : ks.store().asMap().entrySet()) {
      if (ChunkKey.isChunkKey(e.getKey())) {
        versions.put(
            java.util.HexFormat.of().formatHex(e.getKey()), ValueLayout.versionOf(e.getValue()));
      }
    }
    return versions;
  }

  /** The index pages the list's head names (0 if it is not chunked). */
  private static int headPages(Keyspace ks) {
    byte[] head = ks.store().getIfPresent(Keyspace.storedKey(0, KEY));
    if (head == null || !ListChunks.isHeadValue(head)) {
      return 0;
    }
    ListChunks.Index index =
        ListChunks.Index.decode(
            Arrays.copyOfRange(head, ValueLayout.header(head).payloadOffset(), head.length));
    int pages = 0;
    for (int i = 0; i < index.entries(); i++) {
      pages += index.isPage(i) ? 1 : 0;
    }
    return pages;
  }

  /** One random operation on both; returns its name. */
  private static String apply(Keyspace ks, List<byte[]> model, Random random, int step) {
    int op = random.nextInt(100);
    // Grow more than shrink for the first half, then shrink: both forms and both conversions.
    boolean growing = step % 1000 < 600;
    if (op < (growing ? 45 : 15)) {
      List<byte[]> add = elements(random, 1 + random.nextInt(random.nextBoolean() ? 3 : 200), step);
      boolean head = random.nextBoolean();
      push(ks, add, head);
      if (head) {
        for (byte[] e : add) {
          model.addFirst(e);
        }
      } else {
        model.addAll(add);
      }
      return head ? "lpush" : "rpush";
    }
    if (op < 70) {
      int n = 1 + random.nextInt(random.nextBoolean() ? 2 : 300);
      boolean head = random.nextBoolean();
      List<byte[]> taken =
          ks.editList(0, KEY, (before, list) -> head ? list.popHead(n) : list.popTail(n));
      List<byte[]> expected = new ArrayList<>();
      for (int i = 0; i < n && !model.isEmpty(); i++) {
        expected.add(head ? model.removeFirst() : model.removeLast());
      }
      assertSame(expected, taken, step + " pop");
      return "pop";
    }
    if (model.isEmpty()) {
      return "nothing";
    }
    int size = model.size();
    if (op < 78) {
      int i = random.nextInt(size);
      byte[] e = elements(random, 1, step).getFirst();
      ks.editList(
          0,
          KEY,
          (before, list) -> {
            list.set(i, e);
            return null;
          });
      model.set(i, e);
      return "lset";
    }
    if (op < 86) {
      int start = random.nextInt(size);
      int stop = start + random.nextInt(size - start);
      List<byte[]> got = ks.readList(0, KEY, (before, list) -> list.range(start, stop));
      assertSame(model.subList(start, stop + 1), got, step + " lrange");
      return "lrange";
    }
    if (op < 92) {
      int start = random.nextInt(Math.max(1, size / 10));
      int stop = size - 1 - random.nextInt(Math.max(1, size / 10));
      if (start > stop) {
        return "nothing";
      }
      ks.editList(
          0,
          KEY,
          (before, list) -> {
            list.trim(start, stop);
            return null;
          });
      List<byte[]> kept = new ArrayList<>(model.subList(start, stop + 1));
      model.clear();
      model.addAll(kept);
      return "ltrim";
    }
    // LREM of "pivot" from one end, segment by segment, as the command does.
    boolean fromHead = random.nextBoolean();
    ks.editList(
        0,
        KEY,
        (before, list) -> {
          int s = fromHead ? 0 : list.segmentCount() - 1;
          for (; s >= 0 && s < list.segmentCount(); s += fromHead ? 1 : -1) {
            List<byte[]> kept = new ArrayList<>();
            boolean removed = false;
            for (byte[] e : list.segmentElements(s)) {
              if (Arrays.equals(e, b("pivot"))) {
                removed = true;
              } else {
                kept.add(e);
              }
            }
            if (removed) {
              list.replaceSegment(s, kept);
              if (kept.isEmpty() && fromHead) {
                s--;
              }
            }
          }
          return null;
        });
    model.removeIf(e -> Arrays.equals(e, b("pivot")));
    return "lrem";
  }

  private static void fill(Keyspace ks, int n) {
    List<byte[]> add = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      add.add(b("element:" + i));
    }
    pushTail(ks, add);
  }

  @Test
  void theKeyspacesOtherPathsTakeTheChunksWithTheList() {
    try (Keyspace ks = keyspace(64 << 20)) {
      fill(ks, 5_000);
      assertTrue(chunked(ks));
      assertTrue(chunkEntries(ks)[0] > 10, "several chunks");
      assertEquals(1, ks.size(0), "DBSIZE counts the list once");
      List<String> seen = new ArrayList<>();
      ks.forEach(0, (k, v) -> seen.add(new String(k, StandardCharsets.UTF_8)));
      assertEquals(List.of("list"), seen, "walks see the key, never a chunk");

      // A read through the generic path sees the whole list, packed.
      StoredValue whole = ks.peek(0, KEY);
      assertEquals(5_000, ListPayload.count(whole.payload()));

      // EXPIRE changes the head only; the sweep then takes the chunks with it.
      ks.update(0, KEY, v -> v.withExpiry(now.get() + 100));
      assertTrue(chunked(ks), "an expiry keeps the chunked form");
      assertEquals(5_000, contents(ks).size());
      now.addAndGet(100);
      while (ks.sweepExpired(10_000) > 0) {
        // until a pass finds nothing
      }
      assertEquals(0, ks.estimatedSize(), "no chunk outlives its expired list");

      // DEL.
      fill(ks, 5_000);
      assertTrue(ks.delete(0, KEY));
      assertEquals(0, ks.estimatedSize());

      // SET over it.
      fill(ks, 5_000);
      ks.putString(0, KEY, b("now a string"));
      assertEquals(1, ks.estimatedSize());
      ks.delete(0, KEY);

      // A rename: read whole, written under another key, then removed.
      fill(ks, 5_000);
      ks.put(0, b("other"), ks.peek(0, KEY));
      ks.delete(0, KEY);
      assertEquals(5_000, ListPayload.count(ks.peek(0, b("other")).payload()));
      assertEquals(1, ks.estimatedSize(), "the renamed list is packed, the chunks are gone");
      ks.delete(0, b("other"));

      // FLUSHDB of another database leaves it; of its own takes every chunk.
      fill(ks, 5_000);
      ks.flush(1);
      assertEquals(5_000, contents(ks).size());
      ks.flush(0);
      assertEquals(0, ks.estimatedSize());
      assertEquals(0, ks.counts()[0][0]);
    }
  }

  @Test
  void evictionTakesAChunkedListWhole() {
    try (Keyspace ks = keyspace(2 << 20)) {
      fill(ks, 20_000);
      assertTrue(chunked(ks));
      ChunkCensus.assertEvictedWhole(ks, KEY, "the list");
    }
  }

  /**
   * Threads pushing and popping one large list at both ends, and one replacing it now and then with
   * a string and deleting it (writers that take no stripe): every element popped was pushed and is
   * popped once, and at the end no chunk is left that a head does not name.
   */
  @Test
  @org.junit.jupiter.api.Timeout(60)
  void concurrentChangesKeepTheListWhole() throws Exception {
    try (Keyspace ks = keyspace(64 << 20)) {
      // A chunked list exists before the racing writers start (the race with the keyspace's
      // first conversion has a test of its own).
      fill(ks, 5_000);
      ks.delete(0, KEY);
      int threads = 4;
      int rounds = 3_000;
      java.util.concurrent.ConcurrentHashMap<String, Boolean> popped =
          new java.util.concurrent.ConcurrentHashMap<>();
      java.util.concurrent.atomic.AtomicLong pushed = new java.util.concurrent.atomic.AtomicLong();
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(threads + 1);
      try {
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int id = t;
          done.add(
              pool.submit(
                  () -> {
                    for (int r = 0; r < rounds; r++) {
                      List<byte[]> add = new ArrayList<>();
                      for (int i = 0; i < 20; i++) {
                        add.add(b(id + ":" + r + ":" + i + ":" + "x".repeat(r % 50)));
                      }
                      boolean head = r % 2 == 0;
                      ks.editList(
                          0,
                          KEY,
                          (before, list) -> {
                            if (before != null && before.type() != ValueType.LIST) {
                              return null;
                            }
                            if (head) {
                              list.pushHead(add);
                            } else {
                              list.pushTail(add);
                            }
                            return null;
                          });
                      pushed.addAndGet(add.size());
                      List<byte[]> taken =
                          ks.editList(
                              0,
                              KEY,
                              (before, list) ->
                                  before != null && before.type() != ValueType.LIST
                                      ? List.<byte[]>of()
                                      : head ? list.popTail(7) : list.popHead(7));
                      for (byte[] e : taken) {
                        String s = new String(e, StandardCharsets.UTF_8);
                        assertNull(popped.put(s, true), "popped twice: " + s);
                      }
                    }
                  }));
        }
        done.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < 200; r++) {
                    Thread.onSpinWait();
                    if (r % 2 == 0) {
                      ks.putString(0, KEY, b("string"));
                    } else {
                      ks.delete(0, KEY);
                    }
                  }
                }));
        for (java.util.concurrent.Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
      ks.delete(0, KEY);
      int[] entries = chunkEntries(ks);
      assertEquals(0, entries[0] + entries[1], "no chunk outlives the list");
      assertEquals(0, ks.estimatedSize());
      assertTrue(pushed.get() >= popped.size());
    }
  }

  /**
   * A SET racing the first conversion of a list into chunks in the keyspace's life: before it, an
   * overwrite is a blind put, which may have checked for chunked lists before the conversion and
   * land after it. Each round is a new keyspace with a packed list just under the threshold, one
   * thread pushing it past the threshold while another stores a large string over it (a large one,
   * so that its put is long enough for the conversion to fit inside it), the push started a little
   * later each round. Whatever the order, no chunk may be left without the head that names it.
   */
  @Test
  @org.junit.jupiter.api.Timeout(120)
  void aBlindOverwriteRacingTheFirstConversionLeavesNoChunkBehind() throws Exception {
    byte[] big = new byte[1 << 20];
    List<byte[]> push = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      push.add(b("pushed:" + i));
    }
    int rounds = 300;
    int convertedThenOverwritten = 0;
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < rounds; round++) {
        try (Keyspace ks = keyspace(16 << 20)) {
          fill(ks, 400);
          assertFalse(chunked(ks), "the list starts packed");
          long delayNanos = (round % 60) * 20_000L;
          java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
          java.util.concurrent.Future<Boolean> pusher =
              pool.submit(
                  () -> {
                    start.await();
                    long until = System.nanoTime() + delayNanos;
                    while (System.nanoTime() < until) {
                      Thread.onSpinWait();
                    }
                    return ks.editList(
                        0,
                        KEY,
                        (before, list) -> {
                          if (before == null || before.type() != ValueType.LIST) {
                            return false;
                          }
                          list.pushTail(push);
                          return true;
                        });
                  });
          java.util.concurrent.Future<?> setter =
              pool.submit(
                  () -> {
                    start.await();
                    ks.putString(0, KEY, big);
                    return null;
                  });
          start.countDown();
          boolean pushed = pusher.get();
          setter.get();
          StoredValue after = ks.peekHeader(0, KEY);
          assertNotNull(after);
          if (pushed && after.type() == ValueType.STRING) {
            convertedThenOverwritten++;
          }
          int[] entries = chunkEntries(ks);
          assertEquals(
              0,
              entries[0] + entries[1],
              "round " + round + " (push after " + delayNanos / 1000 + " us): chunks left");
        }
      }
    } finally {
      pool.shutdownNow();
    }
    assertTrue(
        convertedThenOverwritten > 0, "some rounds converted the list before the SET replaced it");
  }

  @Test
  void aListWithAMissingChunkIsAbsentAndGoesWhole() {
    try (Keyspace ks = keyspace(64 << 20)) {
      fill(ks, 5_000);
      ChunkCensus.dropOneChunk(ks);
      assertNull(ks.readList(0, KEY, (before, list) -> list == null ? null : list.all()));
      assertEquals(0, ks.estimatedSize(), "the head and every other chunk went with it");
      assertFalse(ks.delete(0, KEY));
    }
  }
}
