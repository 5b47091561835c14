/**
 * Test support shared by every Larder module's tests, at test scope only: {@link
 * dev.larder.testing.Workers} (worker threads whose failures fail the test), {@link
 * dev.larder.testing.Await} (wait on a condition, not a sleep), {@link
 * dev.larder.testing.RequiredTool} (a missing external tool fails the test under CI and skips it
 * elsewhere), {@link dev.larder.testing.RedisServer} (a redis-server child on loopback to compare
 * with or run against) and {@link dev.larder.testing.HeldMessages} (a JGroups member that holds
 * back another's messages: a backup slow to acknowledge; JGroups is required statically, present
 * only in the tests that use it).
 */
// JGroups is an automatic module; HeldMessages's signatures name its types.
@SuppressWarnings("requires-transitive-automatic")
module dev.larder.testing {
  requires transitive org.junit.jupiter.api;
  requires static transitive org.jgroups;

  exports dev.larder.testing;
}
