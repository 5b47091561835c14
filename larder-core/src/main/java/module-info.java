/**
 * Larder core: the {@link dev.larder.Cache} API, codecs, and the compact byte store.
 *
 * <p>Only the API packages are exported; {@code dev.larder.internal} and below are not.
 * User codecs are found through {@link dev.larder.codec.CodecProvider} services.
 */
module dev.larder.core {
  requires HdrHistogram;

  exports dev.larder;
  exports dev.larder.codec;

  uses dev.larder.codec.CodecProvider;
}
