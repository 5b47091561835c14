package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Replies at the edges where Redis 7.0 answers something specific: offsets at the top of the
 * integer range, infinite increments, and the HELP subcommands. Each expected reply was read from
 * redis-server 7.0.15 on loopback.
 */
class RespRedisEdgeCasesTest {
  private final TestServer server = new TestServer();
  private final TestServer.Connection c = server.resp();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void setrangeAtTheLargestOffsetIsTooLargeNotAnOverflow() {
    String tooLarge = "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n";
    assertEquals(tooLarge, c.cmd("SETRANGE", "k", "9223372036854775807", "A"));
    assertEquals(tooLarge, c.cmd("SETRANGE", "k", "9223372036854775806", "AB"));
    c.cmd("SET", "k", "v");
    assertEquals(tooLarge, c.cmd("SETRANGE", "k", "9223372036854775807", "A"));
    assertEquals("$1\r\nv\r\n", c.cmd("GET", "k"));
    assertEquals(
        ":1\r\n",
        c.cmd("SETRANGE", "k", "9223372036854775807", ""),
        "an empty patch changes nothing and is not checked, as in Redis");
  }

  @Test
  void incrbyfloatByAnInfinityWouldProduceInfinity() {
    String infinite = "-ERR increment would produce NaN or Infinity\r\n";
    assertEquals(infinite, c.cmd("INCRBYFLOAT", "f", "+inf"));
    assertEquals(infinite, c.cmd("INCRBYFLOAT", "f", "inf"));
    assertEquals(infinite, c.cmd("INCRBYFLOAT", "f", "-Infinity"));
    assertEquals("$-1\r\n", c.cmd("GET", "f"));
    assertEquals("-ERR value is not a valid float\r\n", c.cmd("INCRBYFLOAT", "f", "nan"));
    c.cmd("SET", "f", "inf");
    assertEquals(infinite, c.cmd("INCRBYFLOAT", "f", "1"));
    c.cmd("SET", "f", "nan");
    assertEquals("-ERR value is not a valid float\r\n", c.cmd("INCRBYFLOAT", "f", "1"));
  }

  @Test
  void helpSubcommandsAnswerHelpArrays() {
    assertHelp(
        c.cmd("CLIENT", "HELP"),
        "CLIENT",
        "SETNAME <name>",
        "GETNAME",
        "ID",
        "INFO",
        "LIST [options ...]",
        "SETINFO <option> <value>");
    assertHelp(
        c.cmd("config", "help"), "CONFIG", "GET <pattern>", "SET <directive> <value>", "RESETSTAT");
    assertHelp(
        c.cmd("ACL", "HELP"),
        "ACL",
        "CAT [<category>]",
        "SETUSER <username> <attribute>" + " [<attribute> ...]",
        "WHOAMI",
        "GENPASS [<bits>]");
    assertHelp(
        c.cmd("COMMAND", "HELP"),
        "COMMAND",
        "(no subcommand)",
        "COUNT",
        "LIST",
        "INFO [<command-name> ...]",
        "DOCS [<command-name> ...]");
    assertEquals(
        "-ERR wrong number of arguments for 'client|help' command\r\n",
        c.cmd("CLIENT", "HELP", "x"));
  }

  /** Redis's help: an array of status lines, a heading, subcommands, HELP last. */
  private static void assertHelp(String reply, String command, String... lines) {
    String[] parts = reply.lines().toArray(String[]::new);
    assertEquals(parts.length - 1, Integer.parseInt(parts[0].substring(1)), reply);
    assertEquals(
        "+" + command + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", parts[1]);
    for (int i = 1; i < parts.length; i++) {
      assertTrue(parts[i].startsWith("+"), "status lines: " + parts[i]);
    }
    for (String line : lines) {
      assertTrue(reply.contains("\r\n+" + line + "\r\n+    "), line + " in " + reply);
    }
    assertTrue(reply.endsWith("\r\n+HELP\r\n+    Prints this help.\r\n"), reply);
  }
}
