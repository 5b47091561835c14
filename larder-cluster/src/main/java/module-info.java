/**
 * Larder cluster: replicated, distributed and invalidation caches on JGroups.
 *
 * <p>Only {@code dev.larder.cluster} is exported; the protocol lives in {@code
 * dev.larder.cluster.internal}, which only JGroups may reach (to make the settings token of a join
 * request). The JGroups stacks ship as resources of this module (see {@link
 * dev.larder.cluster.Stacks}).
 */
module dev.larder.cluster {
  requires transitive dev.larder.core;
  requires transitive dev.larder.tx;
  requires org.jgroups;

  exports dev.larder.cluster;
  // JGroups makes the settings token of a join request by reflection (SettingsToken)
  exports dev.larder.cluster.internal to
      org.jgroups;
}
