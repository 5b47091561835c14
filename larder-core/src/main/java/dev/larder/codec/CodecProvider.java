package dev.larder.codec;

import java.lang.reflect.Type;

/**
 * Service-provider interface for user codecs. Implementations are found with {@link
 * java.util.ServiceLoader} (a {@code provides dev.larder.codec.CodecProvider with ...} clause in a
 * module, or a {@code META-INF/services/dev.larder.codec.CodecProvider} file on the class path) and
 * consulted by {@link Codecs#forType} and {@link Codecs#forGenericType} before the enum and record
 * derivations, so a provider can also replace those for its types.
 *
 * <p>Providers are loaded once, on the first lookup, and must be thread-safe; the codecs they
 * return follow the {@link Codec} contract.
 */
public interface CodecProvider {

  /**
   * Returns a codec for {@code type}, or null if this provider does not handle it.
   *
   * @param type a class or a parameterized type such as {@code List<Money>}
   * @param lookup resolves codecs of component types (built-ins, other providers, records); calling
   *     it for {@code type} itself recurses forever
   * @return the codec, or null
   */
  Codec<?> codecFor(Type type, CodecLookup lookup);
}
