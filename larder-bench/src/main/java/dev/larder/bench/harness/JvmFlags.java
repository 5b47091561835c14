package dev.larder.bench.harness;

import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import java.util.ArrayList;
import java.util.List;

/**
 * The flags every forked trial runs with. All implementations of a scenario get exactly the same
 * flags, and the result file records them.
 *
 * <ul>
 *   <li>G1 with {@code -Xms} = {@code -Xmx} and {@code -XX:+AlwaysPreTouch}: the heap is resident
 *       from the start, so resident-set growth is memory outside the heap.
 *   <li>{@code -XX:MarkSweepDeadRatio=0}: full collections compact everything, so the heap in use
 *       after {@code System.gc()} is the live data.
 *   <li>The opens and exports Chronicle Map 3.27 needs on Java 25, and its analytics switched off;
 *       native access for Infinispan, OHC and Chronicle; {@code sun.misc.Unsafe} memory access
 *       allowed for Ehcache and OHC (it silences their warnings).
 *   <li>{@code -XX:MaxDirectMemorySize=16g}: Ehcache's off-heap pools are direct buffers, limited
 *       by default to the heap size, which 2000 caches of 1 MiB exceed.
 * </ul>
 */
public final class JvmFlags {

  /** Flags for the peers, independent of the scenario. */
  static final List<String> PEER_FLAGS =
      List.of(
          "--enable-native-access=ALL-UNNAMED",
          "--sun-misc-unsafe-memory-access=allow",
          "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
          "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
          "-Dchronicle.analytics.disable=true",
          "-XX:MaxDirectMemorySize=16g",
          "-Djava.awt.headless=true");

  private JvmFlags() {}

  /**
   * Returns the JVM flags of every trial of this scenario.
   *
   * @param scenario the scenario
   * @param options the run's options
   */
  public static List<String> forScenario(Scenario scenario, RunOptions options) {
    String heap = scenario.heapSize(options);
    List<String> flags = new ArrayList<>();
    flags.add("-XX:+UseG1GC");
    flags.add("-Xms" + heap);
    flags.add("-Xmx" + heap);
    flags.add("-XX:+AlwaysPreTouch");
    flags.add("-XX:MarkSweepDeadRatio=0");
    flags.addAll(PEER_FLAGS);
    flags.addAll(scenario.jvmFlags(options));
    return flags;
  }
}
