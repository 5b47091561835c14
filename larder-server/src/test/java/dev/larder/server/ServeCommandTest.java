package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code larder serve} refuses to listen off loopback without passwords, in one clear line. */
class ServeCommandTest {
  @Test
  void offLoopbackWithoutPasswordsIsRefusedBeforeBinding() {
    PrintStream saved = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int exit;
    try {
      exit = new CommandLine(new ServeCommand()).execute("--bind", "0.0.0.0");
    } finally {
      System.setErr(saved);
    }
    assertEquals(2, exit);
    assertEquals("larder serve: requirepass must be set (or an aclfile given) when bind 0.0.0.0"
        + " is not a loopback address: Larder does not accept unauthenticated RESP connections"
        + " off loopback\n", err.toString(StandardCharsets.UTF_8).replace("\r\n", "\n"));
  }
}
