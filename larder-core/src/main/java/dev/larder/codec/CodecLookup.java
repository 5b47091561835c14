package dev.larder.codec;

import java.lang.reflect.Type;

/** Resolves a codec for a type; handed to {@link CodecProvider}s for their component types. */
@FunctionalInterface
public interface CodecLookup {

  /**
   * Returns its codec, never null.
   *
   * @param type a class or parameterized type
   * @throws IllegalArgumentException if no codec exists; the message names the type
   */
  Codec<?> codecFor(Type type);
}
