package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * An open sorted set against the store's path: one seeded sequence of random commands (ZADD with
 * its NX, XX, GT and LT rules, ZINCRBY, ZREM, ZPOPMIN and ZPOPMAX, ZREMRANGEBYRANK; ZRANGE by rank
 * and by score, ZSCORE, ZRANK, ZCARD, a whole ZSCAN) run on two keyspaces, one whose set opens at
 * its first change in the chunked form and is closed now and then, one with the tier off. Every
 * command's reply must be the same on both, and so must the whole set and the chunks the store
 * holds once both are closed.
 */
class OpenZSetModelTest {
  private static final byte[] KEY = b("zset");
  private final AtomicLong now = new AtomicLong(1_000_000);

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  private static String text(List<Entry> entries) {
    StringBuilder out = new StringBuilder();
    for (Entry e : entries) {
      out.append(s(e.member())).append('=').append(e.score()).append(' ');
    }
    return out.toString();
  }

  private static String member(Random random) {
    int n = random.nextInt(8_000);
    return n % 53 == 7 ? "long:" + n + "y".repeat(70) : "member:" + n;
  }

  private static double score(Random random) {
    // few distinct scores now and then, so that runs of equal scores ordered by member cross chunks
    return random.nextInt(6) == 0 ? random.nextInt(3) : random.nextInt(4_000) / 8.0 - 100;
  }

  /** A command: whether it may change the set (so it runs as a change), and what it does. */
  private record Command(boolean writes, Function<ZSetBody, String> run) {}

  /** One command; the set it is given is never null. */
  private static Command command(Random random, int size, boolean growing) {
    Function<ZSetBody, String> change = change(random, size, growing);
    return change != null ? new Command(true, change) : new Command(false, read(random, size));
  }

  /** A command that may change the set, or null for a read. */
  private static Function<ZSetBody, String> change(Random random, int size, boolean growing) {
    int op = random.nextInt(100);
    if (op < (growing ? 45 : 15)) {
      List<Entry> batch = new ArrayList<>();
      for (int i = random.nextInt(growing ? 30 : 4); i >= 0; i--) {
        batch.add(new Entry(b(member(random)), score(random)));
      }
      int rule = random.nextInt(5); // plain, NX, XX, GT, LT
      return z -> {
        int added = 0;
        for (Entry e : batch) {
          Double old = z.score(e.member());
          boolean put =
              switch (rule) {
                case 1 -> old == null;
                case 2 -> old != null;
                case 3 -> old == null || e.score() > old;
                case 4 -> old == null || e.score() < old;
                default -> true;
              };
          if (put) {
            z.put(e.member(), e.score());
            added += old == null ? 1 : 0;
          }
        }
        return "zadd " + added;
      };
    }
    if (op < 55) {
      String m = member(random);
      double by = random.nextInt(40) - 20;
      return z -> {
        Double old = z.score(b(m));
        double next = (old == null ? 0 : old) + by;
        z.put(b(m), next);
        return "zincrby " + next;
      };
    }
    if (op < 68) {
      List<String> ms = new ArrayList<>();
      for (int i = random.nextInt(growing ? 4 : 60); i >= 0; i--) {
        ms.add(member(random));
      }
      return z -> {
        int n = 0;
        for (String m : ms) {
          n += z.remove(b(m)) ? 1 : 0;
        }
        return "zrem " + n;
      };
    }
    if (op < 78) {
      boolean max = random.nextBoolean();
      int count = 1 + random.nextInt(growing ? 3 : 300);
      return z -> "zpop " + text(z.pop(max, count));
    }
    if (op < 81 && size > 2) {
      int from = random.nextInt(size);
      int to = Math.min(size - 1, from + random.nextInt(growing ? 5 : 150));
      return z -> {
        if (to >= z.size()) {
          return "zremrangebyrank skipped";
        }
        z.removeRanks(from, to);
        return "zremrangebyrank";
      };
    }
    return null;
  }

  /** A command that reads the set. */
  private static Function<ZSetBody, String> read(Random random, int size) {
    int op = random.nextInt(20);
    if (op < 8 && size > 0) {
      int from = random.nextInt(size);
      int to = Math.min(size - 1, from + random.nextInt(200));
      return z -> to >= z.size() ? "zrange none" : "zrange " + text(z.range(from, to));
    }
    if (op < 12) {
      double low = score(random);
      return z -> {
        int first = z.firstRank(e -> e.score() >= low);
        int last = Math.min(z.size() - 1, first + 20);
        return "zrangebyscore " + first + " " + (first > last ? "" : text(z.range(first, last)));
      };
    }
    String m = member(random);
    return z -> "zscore " + z.score(b(m)) + " zrank " + z.rank(b(m)) + " zcard " + z.size();
  }

  private static String run(Keyspace ks, boolean write, Function<ZSetBody, String> command) {
    ZSetStore.Edit<String> edit = (before, z) -> z == null ? "none" : command.apply(z);
    return write ? ks.editZSet(0, KEY, edit) : ks.readZSet(0, KEY, edit);
  }

  /** Every member a whole ZSCAN returns, sorted (pages may split differently by chunk). */
  private static Set<String> scanned(Keyspace ks) {
    Set<String> out = new TreeSet<>();
    long cursor = 0;
    int calls = 0;
    do {
      List<Entry> page = new ArrayList<>();
      long from = cursor;
      cursor =
          ks.readZSet(0, KEY, (before, z) -> z == null ? 0L : z.scan(from, 50, m -> true, page));
      page.forEach(e -> out.add(s(e.member())));
    } while (cursor != 0 && ++calls < 100_000);
    assertEquals(0, cursor, "the scan ended");
    return out;
  }

  private static String whole(Keyspace ks) {
    return ks.readZSet(0, KEY, (before, z) -> z == null ? "" : text(z.entries()));
  }

  @Test
  void anOpenSetAnswersAsTheStoreDoesAndClosesToTheSameSet() {
    Random random = new Random(2026_12_01L);
    try (Keyspace open = new Keyspace(64 << 20, now::get);
        Keyspace stored = new Keyspace(64 << 20, now::get)) {
      open.openCollections().openAfter(1);
      stored.openCollections(false);
      int opened = 0;
      boolean wasChunked = false;
      boolean sawPackedAgain = false;
      for (int step = 0; step < 3_000; step++) {
        boolean growing = step % 1_000 < 500;
        int size = stored.readZSet(0, KEY, (before, z) -> z == null ? 0 : z.size());
        Command command = command(random, size, growing);
        // a read runs as a read or as a change that changes nothing (as a command with a write
        // form whose arguments change nothing)
        boolean write = command.writes() || random.nextInt(4) == 0;
        String want = run(stored, write, command.run());
        String got = run(open, write, command.run());
        assertEquals(want, got, step + ": the same reply");
        opened += open.openCollectionStats()[0] > 0 ? 1 : 0;
        if (step % 97 == 0) {
          assertEquals(whole(stored), whole(open), step + ": the same set");
          assertEquals(scanned(stored), scanned(open), step + ": the same scan");
        }
        if (random.nextInt(150) == 0) {
          open.closeOpenCollections();
          assertEquals(0, ChunkCensus.of(open).orphans(), step + ": no chunk unnamed");
        }
        StoredValue head = stored.peekHeader(0, KEY);
        boolean chunked = head != null && ZSetChunks.isHead(head.payload());
        sawPackedAgain |= wasChunked && head != null && !chunked;
        wasChunked |= chunked;
      }
      assertTrue(opened > 1_000, "the set was open for most commands: " + opened);
      assertTrue(sawPackedAgain, "the sequence shrank a chunked set into the packed form");
      open.closeOpenCollections();
      StoredValue a = stored.peek(0, KEY);
      StoredValue b = open.peek(0, KEY);
      assertEquals(
          text(ZSetPayload.entries(a.payload())),
          text(ZSetPayload.entries(b.payload())),
          "the stores hold the same set");
      assertEquals(0, ChunkCensus.of(open).orphans(), "no chunk unnamed");
      assertEquals(0, ChunkCensus.of(stored).orphans());
    }
  }
}
