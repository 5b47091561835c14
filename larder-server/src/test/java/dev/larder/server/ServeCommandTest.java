package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code larder serve} refuses what it cannot do in one clear line, never a stack trace: exit 2 for
 * bad settings, 1 for a port it cannot bind, a log directory in use or a damaged log.
 */
class ServeCommandTest {

  /** The exit code and what the command printed on standard error. */
  private record Outcome(int exit, String err) {}

  private static Outcome serve(String... args) {
    PrintStream saved = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int exit = new CommandLine(new ServeCommand()).execute(args);
      // SLF4J (on the test class path through Jedis) warns once per JVM when Netty first logs
      String printed =
          err.toString(StandardCharsets.UTF_8)
              .replace("\r\n", "\n")
              .replaceAll("(?m)^SLF4J: .*\n", "");
      return new Outcome(exit, printed);
    } finally {
      System.setErr(saved);
    }
  }

  @Test
  void offLoopbackWithoutPasswordsIsRefusedBeforeBinding() {
    assertEquals(
        new Outcome(
            2,
            "larder serve: requirepass must be set (or an aclfile given)"
                + " when bind 0.0.0.0 is not a loopback address: Larder does not accept unauthenticated"
                + " RESP connections off loopback\n"),
        serve("--bind", "0.0.0.0"));
  }

  @Test
  void aConfigFileThatCannotBeReadIsNamed(@TempDir Path dir) {
    Path missing = dir.resolve("missing.properties");
    assertEquals(
        new Outcome(2, "larder serve: config file " + missing + ": no such file\n"),
        serve("--config", missing.toString()));
    assertEquals(
        new Outcome(2, "larder serve: config file " + dir + " cannot be read: Is a directory\n"),
        serve("--config", dir.toString()));
  }

  @Test
  void aLogDirectoryInUseIsRefused(@TempDir Path dir) throws Exception {
    try (TestServer first = new TestServer(java.util.Map.of(), dir, TestServer.START)) {
      first.resp().cmd("SET", "held", "1");
      assertEquals(
          new Outcome(
              1,
              "larder serve: log directory "
                  + dir
                  + " is in use: its lock"
                  + " file "
                  + dir.resolve("lock")
                  + " is held by another process (or another open log"
                  + " in this one)\n"),
          serve(
              "--dir",
              dir.toString(),
              "--port",
              "0",
              "--memcache-port",
              "-1",
              "--http-port",
              "-1"));
    }
  }

  @Test
  void aDamagedLogIsNamedWithItsOffset(@TempDir Path dir) throws Exception {
    for (int round = 0; round < 2; round++) {
      try (TestServer s = new TestServer(java.util.Map.of(), dir, TestServer.START)) {
        for (int i = 0; i < 50; i++) {
          s.resp().cmd("SET", "k" + round + "-" + i, "v");
        }
      }
    }
    Path first = dir.resolve("log-0000000000000001.wal");
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(first.toFile(), "rw")) {
      f.seek(60);
      int b = f.read();
      f.seek(60);
      f.write(b ^ 0x5A);
    }
    Outcome refused =
        serve("--dir", dir.toString(), "--port", "0", "--memcache-port", "-1", "--http-port", "-1");
    assertEquals(1, refused.exit());
    assertTrue(
        refused
            .err()
            .startsWith(
                "larder serve: the log in "
                    + dir
                    + " is damaged,"
                    + " nothing was changed: log corrupted in log-0000000000000001.wal at offset "),
        refused.err());
    assertTrue(
        refused
            .err()
            .endsWith(
                "Start with --set recovery=salvage to recover what is"
                    + " intact and report what is dropped.\n"),
        refused.err());
  }

  @Test
  void printsTheJvmCapsItsSettingsNeedForTheLauncher() {
    PrintStream saved = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      assertEquals(
          0,
          new CommandLine(new ServeCommand())
              .execute(
                  "--print-jvm-options", "--maxmemory", "1gb", "--set", "maxmemory-clients=64mb"));
    } finally {
      System.setOut(saved);
    }
    // heap 96 MiB + 3/4 of 1 GiB + 64 MiB; direct 96 MiB + 64 MiB
    assertEquals(
        "-Xmx928m -XX:MaxDirectMemorySize=160m -XX:G1PeriodicGCInterval=15000\n",
        out.toString(StandardCharsets.UTF_8).replace("\r\n", "\n"));
  }

  @Test
  void aTakenExplicitPortIsNamed() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      assertEquals(
          new Outcome(
              1, "larder serve: cannot listen on 127.0.0.1:" + port + ": the port is in use\n"),
          serve("--port", Integer.toString(port), "--memcache-port", "-1", "--http-port", "-1"));
    }
  }
}
