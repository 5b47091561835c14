package dev.larder.codec;

import java.lang.reflect.Type;

/** Resolves a codec for a type; handed to {@link CodecProvider}s for their component types. */
@FunctionalInterface
public interface CodecLookup {

  /**
   * @param type a class or parameterized type
   * @return its codec, never null
   * @throws IllegalArgumentException if no codec exists; the message names the type
   */
  Codec<?> codecFor(Type type);
}
