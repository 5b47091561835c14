/**
 * A checker of transactional histories in the manner of Jepsen's Elle: it infers write-write,
 * write-read and read-write dependencies from what transactions read and wrote, searches the
 * dependency graph for cycles and names the anomalies it finds (G0, G1a, G1b, G1c, G-single, G2),
 * with the transactions involved. A lab module: it depends on the JDK alone, and no product module
 * may depend on it outside its tests.
 */
module dev.larder.history {
  exports dev.larder.history;
}
