/**
 * Micrometer meters for Larder caches: {@link dev.larder.metrics.LarderCacheMetrics}.
 *
 * <p>micrometer-core has no module descriptor (it is the automatic module {@code micrometer.core});
 * it is required transitively because the binder extends its types.
 */
@SuppressWarnings("requires-transitive-automatic")
module dev.larder.metrics {
  requires transitive dev.larder.core;
  requires transitive micrometer.core;

  exports dev.larder.metrics;
}
