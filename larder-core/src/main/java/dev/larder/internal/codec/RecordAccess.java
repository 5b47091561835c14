package dev.larder.internal.codec;

import dev.larder.codec.Codec;
import java.lang.invoke.MethodHandles;
import java.util.List;

/**
 * Obtains the access a {@link RecordCodec} needs. Without a caller's lookup it tries the public
 * lookup (public records of exported packages, and everything on the class path) and then a private
 * lookup into the record's class, which works where its module opens the package.
 */
final class RecordAccess {

  private RecordAccess() {}

  static <R extends Record> RecordCodec<R> codec(
      Class<R> type, MethodHandles.Lookup lookup, List<Codec<?>> components) {
    try {
      if (lookup != null) {
        return new RecordCodec<>(type, lookup, components);
      }
      return withDefaultAccess(type, components);
    } catch (IllegalAccessException e) {
      throw new IllegalArgumentException(
          "cannot access record "
              + type.getName()
              + ": make it public, open its package, or use Codecs.record(type, lookup)",
          e);
    }
  }

  private static <R extends Record> RecordCodec<R> withDefaultAccess(
      Class<R> type, List<Codec<?>> components) throws IllegalAccessException {
    try {
      return new RecordCodec<>(type, MethodHandles.publicLookup(), components);
    } catch (IllegalAccessException e) {
      MethodHandles.Lookup own = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
      return new RecordCodec<>(type, own, components);
    }
  }
}
