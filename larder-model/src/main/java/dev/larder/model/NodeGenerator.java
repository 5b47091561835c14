package dev.larder.model;

import java.io.Serializable;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Generates the content nodes of the content-node memory test, deterministically: node {@code id}
 * of a generator with seed {@code s} is always the same (equal) node, whatever else was generated
 * before and on whichever thread, so benchmarks can regenerate a node to check what a cache
 * returns.
 *
 * <p>Each node has the aspects {@code cm:auditable} and {@code bm:benchmarkProperties}, and 15
 * properties: an int and a long over their full ranges, a float and a double in [0, 1), a date
 * (midnight UTC) and a date-time between 2010-01-01 and {@link #END} (the seed's benchmark date,
 * fixed so that runs are reproducible), text from a 9-value list, a node reference to {@code
 * workspace://SpacesStore} with a random UUID, a qualified name with a random well-known namespace
 * and a lorem-ipsum local name, the auditable created, creator, modified, modifier and accessed,
 * and content data (content URL, {@code text/plain}, size, {@code UTF-8}, {@code en_GB}).
 *
 * <p>Like a database driver or a deserializer, it returns fresh instances for every value: no two
 * nodes share a String, QName, NodeRef or Date (Locale instances are the JDK's cached ones, as
 * {@code Locale.of} returns them). Collections are a {@code HashSet} and a {@code HashMap}.
 *
 * <p>Thread-safe: a generator is immutable.
 */
public final class NodeGenerator {

  /** The earliest generated date: 2010-01-01T00:00:00Z. */
  public static final Instant START = Instant.parse("2010-01-01T00:00:00Z");

  /** The latest generated date, standing for the "system start" of the seed's run. */
  public static final Instant END = Instant.parse("2020-06-30T00:00:00Z");

  private static final long DAY_MILLIS = 86_400_000L;

  private final long seed;

  /**
   * @param seed selects the sequence of nodes
   */
  public NodeGenerator(long seed) {
    this.seed = seed;
  }

  /** Returns the seed. */
  public long seed() {
    return seed;
  }

  /**
   * Returns the node, freshly allocated.
   *
   * @param id the node's number (any long; benchmarks use 0..n-1 as cache keys)
   */
  public Node node(long id) {
    SplittableRandom random = new SplittableRandom(mix(seed, id));
    Set<QName> aspects = new HashSet<>();
    aspects.add(fresh(ContentModel.AUDITABLE));
    aspects.add(fresh(ContentModel.BENCHMARK_PROPERTIES));
    Map<QName, Serializable> p = new HashMap<>();
    benchmarkProperties(random, p);
    auditableProperties(random, p);
    p.put(fresh(ContentModel.CONTENT), content(random));
    return new Node(aspects, p);
  }

  @SuppressWarnings("JavaUtilDate") // the node model serves java.util.Date, which users store
  private static void benchmarkProperties(SplittableRandom r, Map<QName, Serializable> p) {
    p.put(fresh(ContentModel.INT), r.nextInt());
    p.put(fresh(ContentModel.LONG), r.nextLong());
    p.put(fresh(ContentModel.FLOAT), r.nextFloat());
    p.put(fresh(ContentModel.DOUBLE), r.nextDouble());
    p.put(fresh(ContentModel.DATE), new Date(randomMillis(r) / DAY_MILLIS * DAY_MILLIS));
    p.put(fresh(ContentModel.DATETIME), new Date(randomMillis(r)));
    p.put(fresh(ContentModel.TEXT), pick(r, ContentModel.TEXT_VALUES));
    p.put(fresh(ContentModel.NODEREF), new NodeRef(freshStore(), randomUuid(r)));
    p.put(
        fresh(ContentModel.QNAME),
        new QName(pick(r, ContentModel.NAMESPACES), LoremIpsum.localName(r)));
  }

  @SuppressWarnings("JavaUtilDate") // the node model serves java.util.Date, which users store
  private static void auditableProperties(SplittableRandom r, Map<QName, Serializable> p) {
    long created = randomMillis(r);
    long modified = created + (long) (r.nextDouble() * (END.toEpochMilli() - created));
    long accessed = modified + (long) (r.nextDouble() * (END.toEpochMilli() - modified));
    p.put(fresh(ContentModel.CREATED), new Date(created));
    p.put(fresh(ContentModel.CREATOR), pick(r, ContentModel.USERS));
    p.put(fresh(ContentModel.MODIFIED), new Date(modified));
    p.put(fresh(ContentModel.MODIFIER), pick(r, ContentModel.USERS));
    p.put(fresh(ContentModel.ACCESSED), new Date(accessed));
  }

  private static ContentData content(SplittableRandom r) {
    Instant stored = Instant.ofEpochMilli(randomMillis(r));
    String url = ContentUrls.format(stored, UUID.fromString(randomUuid(r)));
    long size = 200L + r.nextInt(20_000);
    return new ContentData(
        url, copy(ContentModel.MIMETYPE), size, copy(ContentModel.ENCODING), ContentModel.LOCALE);
  }

  private static long randomMillis(SplittableRandom r) {
    return r.nextLong(START.toEpochMilli(), END.toEpochMilli());
  }

  private static String randomUuid(SplittableRandom r) {
    long msb = (r.nextLong() & ~0xF000L) | 0x4000L;
    long lsb = (r.nextLong() & ~0xC000_0000_0000_0000L) | 0x8000_0000_0000_0000L;
    return new UUID(msb, lsb).toString();
  }

  private static String pick(SplittableRandom r, java.util.List<String> values) {
    return copy(values.get(r.nextInt(values.size())));
  }

  private static QName fresh(QName name) {
    return new QName(copy(name.namespaceUri()), copy(name.localName()));
  }

  private static StoreRef freshStore() {
    StoreRef s = ContentModel.SPACES_STORE;
    return new StoreRef(copy(s.protocol()), copy(s.identifier()));
  }

  /** A new String with its own character array, as a driver decoding a row would make. */
  private static String copy(String s) {
    return new String(s.toCharArray());
  }

  private static long mix(long seed, long id) {
    long z = seed * 0x9E3779B97F4A7C15L + id;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
