package dev.larder.cluster.internal;

import dev.larder.RemovalCause;
import dev.larder.cluster.StoreJournal;
import dev.larder.codec.ValueDictionary;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

/**
 * What the cache layer gives the engine besides its configuration: expiry and where removals are
 * reported.
 *
 * @param ttlMillis expire-after-write in milliseconds, or 0 for no expiry
 * @param clock the wall clock that stamps and checks expiry deadlines (members must agree on it)
 * @param removals told of removals this member reports (see {@link RemovalReporting}), or null
 * @param nearEntries entries of the near cache of non-owned keys (distributed mode), 0 for none
 * @param dictionary the value dictionary the value codec substitutes through, kept identical on
 *     every member; or null
 * @param sameValue value equality on encoded values, for conditional writes
 * @param journal told of every change to the local store, or null
 * @param countedValues which stored values the local store counts as it takes them (stored form, so
 *     with an expiry stamp when entries expire), or null for none
 */
public record EngineHooks(
    long ttlMillis,
    InstantSource clock,
    Removals removals,
    long nearEntries,
    ValueDictionary dictionary,
    BiPredicate<byte[], byte[]> sameValue,
    StoreJournal journal,
    Predicate<byte[]> countedValues) {

  /** No expiry, no listener, no near cache, no dictionary; byte equality. */
  public static final EngineHooks NONE =
      new EngineHooks(0, InstantSource.system(), null, 0, null, Arrays::equals, null, null);

  /** Receives removals as encoded key and value bytes; must not block. */
  @FunctionalInterface
  public interface Removals {
    /**
     * Receives one removal.
     *
     * @param key the encoded key
     * @param value the encoded value (without its expiry stamp)
     * @param cause why it was removed
     */
    void removed(byte[] key, byte[] value, RemovalCause cause);
  }
}
