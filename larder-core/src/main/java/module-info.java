/**
 * Larder core: the {@link dev.larder.Cache} API, codecs, and the compact byte store.
 *
 * <p>Only the API packages are exported; {@code dev.larder.internal} and below are not. User codecs
 * are found through {@link dev.larder.codec.CodecProvider} services.
 */
module dev.larder.core {
  requires HdrHistogram;
  requires java.management;

  exports dev.larder;
  exports dev.larder.codec;
  exports dev.larder.management;

  uses dev.larder.codec.CodecProvider;
}
