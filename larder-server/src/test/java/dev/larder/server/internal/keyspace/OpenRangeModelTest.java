package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An open set or hash against the store's path: one seeded sequence of random commands (SADD and
 * HSET in batches, with values of several lengths and values set again unchanged, SREM and HDEL,
 * SISMEMBER and HGET, SCARD and HLEN, and changes that fail part way, to be undone) run on two
 * keyspaces, one whose collection opens at its first change in the chunked form and is closed now
 * and then, one with the tier off. Every command's reply must be the same on both, and so must the
 * whole collection, and the chunks the store holds must all be named once both are closed.
 */
class OpenRangeModelTest {
  private static final byte[] KEY = b("coll");
  private final AtomicLong now = new AtomicLong(1_000_000);

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  private static String key(Random random) {
    int n = random.nextInt(6_000);
    return n % 41 == 3 ? "long:" + n + "z".repeat(90) : "element:" + n;
  }

  private static byte[] value(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> b("xxx");
      case 1 -> b("yyy"); // the same length as another value: replaced in place
      case 2 -> b("v".repeat(random.nextInt(20)));
      default -> b("w".repeat(100 + random.nextInt(100))); // a two-byte length
    };
  }

  /** Thrown by a command part way through its changes. */
  private static final class Failed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Failed() {
      super("failed part way", null, false, false);
    }
  }

  /** A command: whether it may change the collection, and what it does. */
  private record Command(boolean writes, Function<RangeBody, String> run) {}

  private static Command command(Random random, ValueType type, boolean growing) {
    int op = random.nextInt(100);
    if (op < (growing ? 60 : 25)) {
      List<byte[][]> batch = new ArrayList<>();
      for (int i = random.nextInt(growing ? 20 : 4); i >= 0; i--) {
        batch.add(new byte[][] {b(key(random)), value(random)});
      }
      boolean fails = random.nextInt(15) == 0;
      return new Command(
          true,
          body -> {
            int added = 0;
            for (byte[][] e : batch) {
              added += body.put(e[0], type == ValueType.SET ? RangeCodec.NO_VALUE : e[1]) ? 1 : 0;
            }
            if (fails) {
              throw new Failed();
            }
            return "put " + added;
          });
    }
    if (op < 75) {
      List<byte[]> keys = new ArrayList<>();
      for (int i = random.nextInt(growing ? 4 : 60); i >= 0; i--) {
        keys.add(b(key(random)));
      }
      return new Command(
          true,
          body -> {
            int n = 0;
            for (byte[] k : keys) {
              n += body.remove(k) ? 1 : 0;
            }
            return "remove " + n;
          });
    }
    String k = key(random);
    return new Command(
        false,
        body -> {
          byte[] v = body.get(b(k));
          return "get " + (v == null ? "nil" : s(v)) + " size " + body.size();
        });
  }

  private static String run(Keyspace ks, ValueType type, boolean write, Command command) {
    RangeStore.Edit<String> edit =
        (before, body) -> body == null ? "none" : command.run().apply(body);
    try {
      if (type == ValueType.SET) {
        return write ? ks.editSet(0, KEY, edit) : ks.readSet(0, KEY, edit);
      }
      return write ? ks.editHash(0, KEY, edit) : ks.readHash(0, KEY, edit);
    } catch (Failed e) {
      return "failed";
    }
  }

  private static String whole(Keyspace ks, ValueType type) {
    RangeStore.Edit<String> read =
        (before, body) -> {
          if (body == null) {
            return "";
          }
          TreeMap<String, String> sorted = new TreeMap<>();
          for (byte[][] e : body.entries()) {
            sorted.put(s(e[0]), s(e[1]));
          }
          return sorted.toString();
        };
    return type == ValueType.SET ? ks.readSet(0, KEY, read) : ks.readHash(0, KEY, read);
  }

  @ParameterizedTest
  @EnumSource(
      value = ValueType.class,
      names = {"SET", "HASH"})
  void anOpenCollectionAnswersAsTheStoreDoesAndClosesToTheSameOne(ValueType type) {
    Random random = new Random(type == ValueType.SET ? 2026_12_01L : 2026_12_02L);
    try (Keyspace open = new Keyspace(64 << 20, now::get);
        Keyspace stored = new Keyspace(64 << 20, now::get)) {
      open.openCollections().openAfter(1);
      stored.openCollections(false);
      int opened = 0;
      boolean wasChunked = false;
      for (int step = 0; step < 4_000; step++) {
        boolean growing = step % 2_000 < 1_200;
        Command command = command(random, type, growing);
        boolean write = command.writes() || random.nextInt(4) == 0;
        String want = run(stored, type, write, command);
        String got = run(open, type, write, command);
        assertEquals(want, got, step + ": the same reply");
        opened += open.openCollectionStats()[0] > 0 ? 1 : 0;
        if (step % 97 == 0) {
          assertEquals(whole(stored, type), whole(open, type), step + ": the same collection");
        }
        if (random.nextInt(200) == 0) {
          open.closeOpenCollections();
          assertEquals(0, ChunkCensus.of(open).orphans(), step + ": no chunk unnamed");
        }
        StoredValue head = stored.peekHeader(0, KEY);
        wasChunked |= head != null && RangeChunks.isHead(type, head.payload());
      }
      assertTrue(wasChunked, "the collection was chunked");
      assertTrue(opened > 1_000, "the collection was open for most commands: " + opened);
      open.closeOpenCollections();
      assertEquals(whole(stored, type), whole(open, type), "the stores hold the same collection");
      assertEquals(0, ChunkCensus.of(open).orphans(), "no chunk unnamed");
      assertEquals(0, ChunkCensus.of(stored).orphans());
    }
  }
}
