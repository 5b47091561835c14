/**
 * Larder core: the {@link dev.larder.Cache} API, codecs, and the compact byte store.
 *
 * <p>Only the API packages are exported; {@code dev.larder.internal} and below are not, but for the
 * byte store's bulk restore and snapshot ({@code dev.larder.internal.bulk}) and its count of keys
 * by first byte ({@code dev.larder.internal.count}), exported to the server alone, which loads its
 * checkpoints and sizes its databases through them. User codecs are found through {@link
 * dev.larder.codec.CodecProvider} services.
 */
// "module": the qualified export below names the server module, which is not built before core
@SuppressWarnings("module")
module dev.larder.core {
  requires HdrHistogram;
  requires java.management;

  exports dev.larder;
  exports dev.larder.codec;
  exports dev.larder.management;
  // the byte store's bulk restore and snapshot: internal, for the server's checkpoints only
  exports dev.larder.internal.bulk to
      dev.larder.server;
  // the byte store's count of keys by first byte: internal, for the server's DBSIZE only
  exports dev.larder.internal.count to
      dev.larder.server;

  uses dev.larder.codec.CodecProvider;
}
