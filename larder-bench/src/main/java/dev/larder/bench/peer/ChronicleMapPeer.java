package dev.larder.bench.peer;

import java.util.OptionalLong;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;

/**
 * Chronicle Map 3, in memory (not persisted), sized up front with {@code entries} and the average
 * key and value sizes as its documentation requires. Values that are not byte[] or String are
 * stored as codec bytes. Chronicle Map has no eviction: a scenario that needs a bound gets a {@link
 * PeerUnavailableException}.
 */
final class ChronicleMapPeer implements Peer {

  @Override
  public String name() {
    return "ChronicleMap";
  }

  @Override
  public boolean offHeap() {
    return true;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, V> CacheFamily<K, V> family(CacheSpec<K, V> spec) throws PeerUnavailableException {
    if (!spec.unbounded()) {
      throw new PeerUnavailableException(
          "Chronicle Map has no eviction: a full map rejects puts, so it cannot be bounded");
    }
    if (spec.valueType() == byte[].class || spec.valueType() == String.class) {
      return SimpleFamily.of(name -> new ChronicleCache<>(build(spec, spec.valueType(), name)));
    }
    CacheSpec<K, byte[]> bytes = (CacheSpec<K, byte[]>) (CacheSpec<K, ?>) spec;
    return SimpleFamily.of(
        name ->
            new EncodingCache<>(
                new ChronicleCache<>(build(bytes, byte[].class, name)), spec.valueCodec()));
  }

  private static <K, V> ChronicleMap<K, V> build(
      CacheSpec<K, ?> spec, Class<V> valueType, String name) {
    ChronicleMapBuilder<K, V> builder =
        ChronicleMapBuilder.of(spec.keyType(), valueType)
            .name(name)
            .entries(Math.max(spec.expectedEntries(), 16))
            .averageValueSize(spec.averageValueBytes());
    if (spec.keyType() == String.class) {
      builder.averageKeySize(spec.averageKeyBytes());
    }
    return builder.create();
  }

  private record ChronicleCache<K, V>(ChronicleMap<K, V> map) implements BenchCache<K, V> {

    @Override
    public V get(K key) {
      return map.get(key);
    }

    @Override
    public void put(K key, V value) {
      map.put(key, value);
    }

    @Override
    public long size() {
      return map.longSize();
    }

    @Override
    public OptionalLong reportedBytes() {
      return OptionalLong.of(map.offHeapMemoryUsed());
    }

    @Override
    public void close() {
      map.close();
    }
  }
}
