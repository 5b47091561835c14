package dev.larder.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the clustered-server fault trials share about their member processes: the peers setting, the
 * members other than one, the check of a member's answer, and the stop at the end.
 */
final class ServerMembers {
  private ServerMembers() {}

  /** Returns the {@code peers} setting naming every member's cluster port on 127.0.0.1. */
  static String peers(int[] clusterPorts) {
    StringBuilder peers = new StringBuilder();
    for (int j = 0; j < clusterPorts.length; j++) {
      peers.append(j == 0 ? "" : ",").append("127.0.0.1[").append(clusterPorts[j]).append(']');
    }
    return peers.toString();
  }

  /** Returns every member but {@code members[i]}, in order. */
  static List<MemberProcess> others(MemberProcess[] members, int i) {
    List<MemberProcess> out = new ArrayList<>();
    for (int j = 0; j < members.length; j++) {
      if (j != i) {
        out.add(members[j]);
      }
    }
    return out;
  }

  /**
   * Checks a member's answer to a control command.
   *
   * @throws IllegalStateException if it is not {@code wanted}
   */
  static void expect(String answer, String wanted) {
    if (!answer.equals(wanted)) {
      throw new IllegalStateException("a member answered '" + answer + "', not " + wanted);
    }
  }

  /** How many times a member's first start may find a port taken and move to fresh ones. */
  static final int FIRST_START_ATTEMPTS = 5;

  /** How long a restart tries again to bind the ports its member had before. */
  static final long OWN_PORTS_WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

  /** Chooses fresh ports for a member (its trial's arrays). */
  @FunctionalInterface
  interface FreshPorts {
    void choose() throws IOException;
  }

  /**
   * Starts a member with {@code start}, which reads its ports from its trial. If a port was taken
   * by the time the member bound it (found free a moment before, then taken by a socket outside the
   * trial: the member's standard error says so), then at its first start {@code fresh} gives it
   * other ports and it starts again, at most {@value #FIRST_START_ATTEMPTS} times; at a restart it
   * must come back on its own ports (the others name them in their peers), so it starts again every
   * 250 ms for up to 60 s.
   *
   * @param firstStart whether the member never ran in this trial
   */
  static MemberProcess start(boolean firstStart, Callable<MemberProcess> start, FreshPorts fresh)
      throws Exception {
    long deadline = System.nanoTime() + OWN_PORTS_WAIT_NANOS;
    for (int attempt = 1; ; attempt++) {
      try {
        return start.call();
      } catch (IllegalStateException e) {
        if (!portTaken(e)
            || (firstStart ? attempt == FIRST_START_ATTEMPTS : System.nanoTime() > deadline)) {
          throw e;
        }
        System.err.println(
            "a member could not bind (attempt "
                + attempt
                + (firstStart ? "; fresh ports" : "; its own ports again")
                + "): "
                + e.getMessage());
        if (firstStart) {
          fresh.choose();
        } else {
          Thread.sleep(250);
        }
      }
    }
  }

  /**
   * Whether a member's failure to start says a port was taken: the server's "the port is in use"
   * (its listeners) or JGroups' "No available port to bind" (its cluster channels).
   */
  static boolean portTaken(Throwable e) {
    String m = String.valueOf(e.getMessage());
    return m.contains("the port is in use") || m.contains("No available port to bind");
  }

  /**
   * Stops every member started (null entries are skipped), then deletes the trial's directory of
   * logs and data if there is one.
   */
  static void stopAll(MemberProcess[] members, Path dir) throws IOException, InterruptedException {
    for (MemberProcess m : members) {
      if (m != null) {
        m.stop();
      }
    }
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
