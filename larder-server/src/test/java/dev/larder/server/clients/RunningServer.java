package dev.larder.server.clients;

import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Test helpers: a real server on free loopback ports, and external tools run with a timeout (a test
 * finds them with {@code dev.larder.testing.RequiredTool} first).
 */
final class RunningServer {
  private RunningServer() {}

  /** Starts a server on free ports of 127.0.0.1 with the given settings added. */
  static LarderServer start(String... settings) throws IOException {
    Map<String, String> m = new HashMap<>(Map.of("resp-port", "0", "memcache-port", "0"));
    for (int i = 0; i < settings.length; i += 2) {
      m.put(settings[i], settings[i + 1]);
    }
    return LarderServer.start(ServerConfig.of(m));
  }

  /** The outcome of a tool run. */
  record Run(int exit, String out) {}

  /** Runs a command (stdout and stderr merged), killing it after the timeout. */
  static Run run(long timeoutSeconds, String... command) throws IOException, InterruptedException {
    Path out = Files.createTempFile("larder-tool", ".out");
    try {
      Process p =
          new ProcessBuilder(new ArrayList<>(List.of(command)))
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError(
            String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
      }
      return new Run(p.exitValue(), Files.readString(out, StandardCharsets.ISO_8859_1));
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
