package dev.larder.server.clients;

import dev.larder.server.ServerConfig;
import dev.larder.server.internal.cluster.ClusterStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test helper: the JGroups stack a clustered server generates for its settings, with failure
 * detection and merging made faster for tests on one host. FD_ALL3 suspects a member after 3 s
 * without its heartbeats (every 500 ms) instead of 10 s (every 2 s), and MERGE3 looks for
 * partitions every 0.5-1.5 s instead of 2-5 s; everything else (transport, discovery, the protocols
 * and their order) is the server's. A member cut off by DISCARD keeps its sockets open, so only
 * FD_ALL3's timeout notices the cut: with the server's timings each cut of a test waited about 10 s
 * and each merge up to 5 s. The timeout stays above the in-process stack's 2 s because these
 * members are whole servers on a shared host, whose heartbeats can be late by a second or more.
 */
final class QuickFailureDetection {

  private static final Pattern FD_ALL3 = Pattern.compile("<FD_ALL3\\b[^>]*/>");
  private static final Pattern MERGE3 = Pattern.compile("<MERGE3\\b[^>]*/>");

  private QuickFailureDetection() {}

  /**
   * Writes the stack for a member with these settings to a temporary file (deleted when the JVM
   * exits); returns its path, for {@code cluster-stack}.
   *
   * @throws IOException if the file cannot be written
   * @throws IllegalStateException if the server's stack no longer has exactly one FD_ALL3 and one
   *     MERGE3 (the test would silently keep the slow timings)
   */
  static String stackFile(ServerConfig config) throws IOException {
    String xml = Files.readString(Path.of(ClusterStack.of(config)));
    xml = replaceOnce(xml, FD_ALL3, "<FD_ALL3 timeout=\"3s\" interval=\"500ms\"/>");
    xml = replaceOnce(xml, MERGE3, "<MERGE3 min_interval=\"500ms\" max_interval=\"1500ms\"/>");
    Path file = Files.createTempFile("larder-test-stack-", ".xml");
    file.toFile().deleteOnExit();
    Files.writeString(file, xml);
    return file.toString();
  }

  private static String replaceOnce(String xml, Pattern protocol, String replacement) {
    Matcher m = protocol.matcher(xml);
    if (!m.find()) {
      throw new IllegalStateException("the server's stack has no " + protocol + ":\n" + xml);
    }
    String replaced = xml.substring(0, m.start()) + replacement + xml.substring(m.end());
    if (m.find()) {
      throw new IllegalStateException("the server's stack has two " + protocol + ":\n" + xml);
    }
    return replaced;
  }
}
