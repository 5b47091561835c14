package dev.larder.tx.spi;

import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import java.lang.invoke.MethodHandles;
import java.util.List;
import java.util.Objects;

/**
 * Makes a {@link TxStore} over a {@link TxBackend} other than the local engine (larder-cluster's
 * clustered store). {@code TxStore} registers its constructor here when its class is initialized,
 * so that the store keeps its constructors private and its public API free of this package.
 *
 * <p>Thread-safe.
 */
public final class TxStores {

  /** Opens a store over a backend. */
  @FunctionalInterface
  public interface Opener {
    /**
     * Returns the store.
     *
     * @param specs the caches, in the backend's index order
     * @param backend the engine
     */
    TxStore open(List<TxCacheSpec<?, ?>> specs, TxBackend backend);
  }

  private static volatile Opener opener;

  private TxStores() {}

  /**
   * Called once, by {@code TxStore}'s class initializer.
   *
   * @param o the store's constructor
   */
  public static void register(Opener o) {
    if (opener != null) {
      throw new IllegalStateException("already registered");
    }
    opener = Objects.requireNonNull(o, "o");
  }

  /**
   * Returns a store whose transactions commit through {@code backend}.
   *
   * @param specs the caches, in the backend's index order
   * @param backend the engine; the store closes it
   */
  public static TxStore open(List<TxCacheSpec<?, ?>> specs, TxBackend backend) {
    if (opener == null) {
      try {
        MethodHandles.lookup().ensureInitialized(TxStore.class);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }
    return opener.open(List.copyOf(specs), backend);
  }
}
