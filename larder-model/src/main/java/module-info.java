/**
 * The model of the content-node memory test (qualified names, node references, content data, nodes
 * with aspects and properties), a deterministic generator of such nodes, and their codecs with
 * value substitution. Used by tests and by the benchmarks.
 */
module dev.larder.model {
  requires transitive dev.larder.core;

  exports dev.larder.model;
}
