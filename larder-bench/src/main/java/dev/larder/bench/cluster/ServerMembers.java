package dev.larder.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
