package dev.larder.cluster;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A cluster member in its own JVM, driven by {@link MultiJvmTest} over stdin/stdout, one command
 * per line: {@code fill N PREFIX}, {@code check N PREFIX}, {@code members}, {@code rebalanced},
 * {@code quit}. Each answer is one line. Exits when stdin closes.
 */
public final class ChildNode {

  private ChildNode() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("larder.cluster.port", args[0]);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (ClusteredCache<String, String> cache =
        ClusteredCache.builder(String.class, String.class)
            .cluster(
                ClusterConfig.builder()
                    .stack(Stacks.LOOPBACK)
                    .clusterName(args[1])
                    .nodeName(args[2])
                    .mode(ClusterMode.valueOf(args[3]))
                    .owners(2)
                    .timeout(Duration.ofSeconds(10))
                    .segments(64)
                    .build())
            .build()) {
      out.println("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] w = line.trim().split(" ", -1);
        switch (w[0]) {
          case "fill" -> {
            for (int i = 0; i < Integer.parseInt(w[1]); i++) {
              cache.put(w[2] + i, "v" + i);
            }
            out.println("ok");
          }
          case "check" -> {
            int found = 0;
            for (int i = 0; i < Integer.parseInt(w[1]); i++) {
              found += ("v" + i).equals(cache.getIfPresent(w[2] + i)) ? 1 : 0;
            }
            out.println(found);
          }
          case "members" -> out.println(cache.members().size());
          case "rebalanced" -> out.println(cache.awaitRebalanced(Duration.ofSeconds(20)));
          case "quit" -> {
            return;
          }
          default -> out.println("unknown " + line);
        }
      }
    }
  }
}
