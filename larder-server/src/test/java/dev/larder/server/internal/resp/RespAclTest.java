package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ACL users over RESP: AUTH with users, ACL SETUSER rules, NOPERM refusals, the aclfile. */
class RespAclTest {
  private static final String WRONGPASS =
      "-WRONGPASS invalid username-password pair or user is disabled.\r\n";
  // SHA-256 of "pw", as Redis prints it.
  private static final String PW_HASH =
      "30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4";

  @Test
  void setUserCreatesAUserWhoseRulesLimitCommandsAndKeys() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection admin = server.resp();
      assertEquals(
          "+OK\r\n",
          admin.cmd(
              "ACL",
              "SETUSER",
              "alice",
              "on",
              ">pw",
              "~cache:*",
              "+@read",
              "+@string",
              "-@dangerous"));
      assertEquals(
          "*2\r\n$"
              + ("user alice on #"
                      + PW_HASH
                      + " ~cache:* resetchannels -@all"
                      + " +@read +@string -@dangerous")
                  .length()
              + "\r\nuser alice on #"
              + PW_HASH
              + " ~cache:* resetchannels -@all +@read +@string -@dangerous\r\n"
              + "$34\r\nuser default on nopass ~* &* +@all\r\n",
          admin.cmd("ACL", "LIST"));

      TestServer.Connection alice = server.resp();
      assertEquals("$7\r\ndefault\r\n", alice.cmd("ACL", "WHOAMI"));
      assertEquals(WRONGPASS, alice.cmd("AUTH", "alice", "wrong"));
      assertEquals("+OK\r\n", alice.cmd("AUTH", "alice", "pw"));
      assertEquals("+OK\r\n", alice.cmd("SET", "cache:1", "v"));
      assertEquals("$1\r\nv\r\n", alice.cmd("GET", "cache:1"));
      assertEquals("-NOPERM No permissions to access a key\r\n", alice.cmd("GET", "other"));
      assertEquals(
          "-NOPERM No permissions to access a key\r\n", alice.cmd("MGET", "cache:1", "other"));
      assertEquals(
          "-NOPERM User alice has no permissions to run the 'hset' command\r\n",
          alice.cmd("HSET", "cache:h", "f", "v"));
      assertEquals(
          "-NOPERM User alice has no permissions to run the 'keys' command\r\n",
          alice.cmd("KEYS", "*"),
          "KEYS is @read but also @dangerous");
      assertEquals(
          "-NOPERM User alice has no permissions to run the 'acl' command\r\n",
          alice.cmd("ACL", "WHOAMI"));
      assertTrue(server.resp().cmd("CLIENT", "LIST").contains("user=alice"));

      // A change applies to connections already authenticated, at their next command.
      assertEquals("+OK\r\n", admin.cmd("ACL", "SETUSER", "alice", "+hset", "allkeys"));
      assertEquals(":1\r\n", alice.cmd("HSET", "anything", "f", "v"));
    }
  }

  @Test
  void getUserShowsFlagsPasswordsCommandsAndKeys() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      assertEquals("$-1\r\n", c.cmd("ACL", "GETUSER", "nobody"));
      assertEquals("+OK\r\n", c.cmd("ACL", "SETUSER", "bob"));
      assertEquals(
          """
          *12\r
          $5\r
          flags\r
          *1\r
          $3\r
          off\r
          $9\r
          passwords\r
          *0\r
          $8\r
          commands\r
          $5\r
          -@all\r
          $4\r
          keys\r
          $0\r
          \r
          $8\r
          channels\r
          $0\r
          \r
          $9\r
          selectors\r
          *0\r
          """,
          c.cmd("ACL", "GETUSER", "bob"));
      assertEquals(
          "+OK\r\n", c.cmd("ACL", "SETUSER", "bob", "on", ">pw", "allkeys", "allcommands"));
      String bob = c.cmd("ACL", "GETUSER", "bob");
      assertTrue(
          bob.contains("$2\r\non\r\n")
              && bob.contains(PW_HASH)
              && bob.contains("$5\r\n+@all\r\n")
              && bob.contains("$2\r\n~*\r\n"),
          bob);
      c.cmd("HELLO", "3");
      assertTrue(c.cmd("ACL", "GETUSER", "bob").startsWith("%6\r\n"), "RESP3: a map");
      assertEquals(
          "*2\r\n$3\r\nbob\r\n$7\r\ndefault\r\n".replace("*2", "*2"), c.cmd("ACL", "USERS"));
    }
  }

  @Test
  void invalidRulesAreRefusedWithRedisWordingAndChangeNothing() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      assertEquals(
          "-ERR Error in ACL SETUSER modifier 'foo': Syntax error\r\n",
          c.cmd("ACL", "SETUSER", "bob", "on", "foo"));
      assertEquals("$-1\r\n", c.cmd("ACL", "GETUSER", "bob"), "nothing applied");
      assertEquals(
          "-ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category"
              + " name in ACL\r\n",
          c.cmd("ACL", "SETUSER", "bob", "+nosuch"));
      assertEquals(
          "-ERR Error in ACL SETUSER modifier '+@nosuch': Unknown command or category"
              + " name in ACL\r\n",
          c.cmd("ACL", "SETUSER", "bob", "+@nosuch"));
      assertEquals(
          "-ERR Error in ACL SETUSER modifier '<nosuch': The password you are trying"
              + " to remove from the user does not exist\r\n",
          c.cmd("ACL", "SETUSER", "bob", "<nosuch"));
      assertTrue(
          c.cmd("ACL", "SETUSER", "bob", "#abc")
              .startsWith(
                  "-ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64"));
      assertTrue(
          c.cmd("ACL", "SETUSER", "bob", "~*", "~x")
              .startsWith(
                  "-ERR Error in ACL SETUSER modifier '~x': Adding a pattern after the * pattern"));
      assertEquals(
          "-ERR The 'default' user cannot be removed\r\n", c.cmd("ACL", "DELUSER", "default"));
      assertEquals("-ERR unknown subcommand 'NOPE'. Try ACL HELP.\r\n", c.cmd("ACL", "NOPE"));
      assertTrue(c.cmd("ACL", "CAT").contains("$9\r\ndangerous\r\n"));
      assertTrue(c.cmd("ACL", "CAT", "hash").contains("$4\r\nhget\r\n"));
      assertEquals("-ERR Unknown category 'nope'\r\n", c.cmd("ACL", "CAT", "nope"));
      assertTrue(c.cmd("ACL", "GENPASS").matches("\\$64\r\n[0-9a-f]{64}\r\n"));
    }
  }

  @Test
  void offAndDeletedUsersCannotWorkAndHashedPasswordsAuthenticate() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection admin = server.resp();
      admin.cmd("ACL", "SETUSER", "carol", "on", "#" + PW_HASH, "~*", "+@all");
      TestServer.Connection carol = server.resp();
      assertEquals("+OK\r\n", carol.cmd("AUTH", "carol", "pw"));
      assertEquals("+OK\r\n", admin.cmd("ACL", "SETUSER", "carol", "off"));
      assertEquals(WRONGPASS, server.resp().cmd("AUTH", "carol", "pw"), "off: no new AUTH");
      assertEquals("+PONG\r\n", carol.cmd("PING"), "off keeps authenticated connections");
      assertEquals(WRONGPASS, carol.cmd("AUTH", "carol", "pw"));
      assertEquals("$5\r\ncarol\r\n", carol.cmd("ACL", "WHOAMI"), "a failed AUTH changes nothing");
      assertEquals(":1\r\n", admin.cmd("ACL", "DELUSER", "carol", "nobody"));
      assertEquals("", carol.cmd("PING"));
      assertFalse(carol.channel.isOpen(), "connections of a deleted user are closed");
    }
  }

  @Test
  void noPermInMultiAbortsTheTransaction() {
    try (TestServer server = new TestServer()) {
      server
          .resp()
          .cmd(
              "ACL",
              "SETUSER",
              "ro",
              "on",
              "nopass",
              "~*",
              "+@read",
              "+@transaction",
              "+@connection");
      TestServer.Connection c = server.resp();
      assertEquals("+OK\r\n", c.cmd("AUTH", "ro", "anything"), "nopass accepts any password");
      assertEquals("+OK\r\n", c.cmd("MULTI"));
      assertTrue(c.cmd("SET", "k", "v").startsWith("-NOPERM"));
      assertTrue(c.cmd("EXEC").startsWith("-EXECABORT"));

      // Rules that change between MULTI and EXEC are checked again when EXEC runs.
      server.resp().cmd("ACL", "SETUSER", "ro", "+set");
      assertEquals("+OK\r\n", c.cmd("MULTI"));
      assertEquals("+QUEUED\r\n", c.cmd("SET", "k", "v"));
      assertEquals("+QUEUED\r\n", c.cmd("GET", "k"));
      server.resp().cmd("ACL", "SETUSER", "ro", "-set");
      assertEquals(
          "*2\r\n-NOPERM User ro has no permissions to run the 'set' command\r\n$-1\r\n",
          c.cmd("EXEC"));
    }
  }

  @Test
  void requirepassAndHelloAuth() {
    try (TestServer server = new TestServer(Map.of("requirepass", "s3cret"))) {
      TestServer.Connection admin = server.resp();
      assertEquals("-NOAUTH Authentication required.\r\n", admin.cmd("ACL", "LIST"));
      assertEquals("+OK\r\n", admin.cmd("AUTH", "s3cret"));
      assertEquals("+OK\r\n", admin.cmd("ACL", "SETUSER", "dave", "on", ">pw", "~*", "+@all"));
      TestServer.Connection d = server.resp();
      assertEquals(
          "-WRONGPASS invalid username-password pair or user is disabled.\r\n",
          d.cmd("HELLO", "3", "AUTH", "dave", "nope"));
      assertTrue(d.cmd("HELLO", "3", "AUTH", "dave", "pw").startsWith("%7\r\n"));
      assertEquals("$4\r\ndave\r\n", d.cmd("ACL", "WHOAMI"));
      assertEquals("+RESET\r\n", d.cmd("RESET"));
      assertEquals("-NOAUTH Authentication required.\r\n", d.cmd("ACL", "WHOAMI"));
      // Turning the default user off leaves new connections unauthenticated.
      admin.cmd("ACL", "SETUSER", "default", "nopass");
      assertEquals("+PONG\r\n", server.resp().cmd("PING"), "default now needs no password");
    }
  }

  @Test
  void unauthenticatedRequestsHaveRedisTighterLimits() {
    String[] eleven = new String[11];
    java.util.Arrays.fill(eleven, "k");
    eleven[0] = "DEL";
    String big = "v".repeat(16_385);
    try (TestServer server = new TestServer(Map.of("requirepass", "s3cret"))) {
      TestServer.Connection c = server.resp();
      assertEquals("-ERR Protocol error: unauthenticated multibulk length\r\n", c.cmd(eleven));
      assertFalse(c.channel.isOpen());
      TestServer.Connection d = server.resp();
      assertEquals("-ERR Protocol error: unauthenticated bulk length\r\n", d.cmd("SET", "k", big));
      assertFalse(d.channel.isOpen());
      // Pipelined after AUTH, in one read: the limits are lifted from the next request on.
      TestServer.Connection e = server.resp();
      assertEquals(
          "+OK\r\n+OK\r\n:1\r\n",
          e.raw(
              TestServer.Connection.multibulk("AUTH", "s3cret")
                  + TestServer.Connection.multibulk("SET", "k", big)
                  + TestServer.Connection.multibulk(eleven)));
    }
    try (TestServer server = new TestServer()) {
      assertEquals(":0\r\n", server.resp().cmd(eleven), "no password: no such limits");
    }
  }

  @Test
  void theAclfileDefinesUsersAndAnInvalidOneIsRefused(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("users.acl");
    Files.writeString(
        file,
        """
        # users
        user default on >adminpw ~* &* +@all

        user reader on >r ~* +@read +@connection
        """,
        StandardCharsets.UTF_8);
    try (TestServer server = new TestServer(Map.of("aclfile", file.toString()))) {
      TestServer.Connection c = server.resp();
      assertEquals("-NOAUTH Authentication required.\r\n", c.cmd("GET", "k"));
      assertEquals("+OK\r\n", c.cmd("AUTH", "reader", "r"));
      assertEquals("$-1\r\n", c.cmd("GET", "k"));
      assertTrue(c.cmd("SET", "k", "v").startsWith("-NOPERM User reader"));
      assertEquals("+OK\r\n", c.cmd("AUTH", "adminpw"));
      assertEquals("+OK\r\n", c.cmd("SET", "k", "v"));
    }
    Files.writeString(file, "user bad on +nosuch\n", StandardCharsets.UTF_8);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new TestServer(Map.of("aclfile", file.toString())));
    assertEquals(
        "aclfile " + file + " line 1: rule '+nosuch': Unknown command or category name" + " in ACL",
        e.getMessage());
  }

  @Test
  void commandReportsRedisCategories() {
    try (TestServer server = new TestServer()) {
      String info = server.resp().cmd("COMMAND", "INFO", "get");
      assertTrue(
          info.contains("+@string\r\n")
              && info.contains("+@read\r\n")
              && info.contains("+@fast\r\n"),
          info);
    }
  }

  /**
   * Commands whose keys a numkeys argument counts are checked on those keys only: their option
   * words (WEIGHTS, AGGREGATE, LIMIT, WITHSCORES, MIN, COUNT...) and numbers are not keys.
   */
  @Test
  void countedKeysAreCheckedAndTheirOptionWordsAreNot() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection admin = server.resp();
      admin.cmd("ACL", "SETUSER", "kim", "on", ">pw", "~k*", "+@all");
      TestServer.Connection kim = server.resp();
      kim.cmd("AUTH", "kim", "pw");
      kim.cmd("ZADD", "ka", "1", "m", "2", "n");
      kim.cmd("ZADD", "kb", "3", "m");
      kim.cmd("SADD", "ks", "m");
      assertEquals(
          ":2\r\n",
          kim.cmd("ZUNIONSTORE", "kd", "2", "ka", "kb", "WEIGHTS", "1", "2", "AGGREGATE", "MAX"));
      assertEquals(
          "*2\r\n$1\r\nm\r\n$1\r\n7\r\n",
          kim.cmd("ZINTER", "2", "ka", "kb", "WEIGHTS", "1", "2", "WITHSCORES"));
      assertEquals(":1\r\n", kim.cmd("ZINTERSTORE", "kd", "2", "ka", "kb", "AGGREGATE", "MIN"));
      assertEquals(":1\r\n", kim.cmd("ZDIFFSTORE", "kd", "2", "ka", "kb"));
      assertEquals("*1\r\n$1\r\nn\r\n", kim.cmd("ZDIFF", "2", "ka", "kb"));
      assertEquals(":1\r\n", kim.cmd("ZINTERCARD", "2", "ka", "kb", "LIMIT", "5"));
      assertEquals(":1\r\n", kim.cmd("SINTERCARD", "1", "ks", "LIMIT", "5"));
      assertEquals(
          "*2\r\n$2\r\nka\r\n*1\r\n*2\r\n$1\r\nm\r\n$1\r\n1\r\n",
          kim.cmd("ZMPOP", "1", "ka", "MIN", "COUNT", "1"));
      assertEquals(
          "*2\r\n$2\r\nka\r\n*1\r\n*2\r\n$1\r\nn\r\n$1\r\n2\r\n",
          kim.cmd("BZMPOP", "0", "1", "ka", "MAX", "COUNT", "1"));
      kim.cmd("RPUSH", "kl", "x", "y");
      assertEquals("*2\r\n$2\r\nkl\r\n*1\r\n$1\r\nx\r\n", kim.cmd("LMPOP", "1", "kl", "LEFT"));
      assertEquals(
          "*2\r\n$2\r\nkl\r\n*1\r\n$1\r\ny\r\n",
          kim.cmd("BLMPOP", "0", "1", "kl", "RIGHT", "COUNT", "1"));
      // A counted key outside the patterns is refused, as is a destination outside them.
      String noperm = "-NOPERM No permissions to access a key\r\n";
      assertEquals(noperm, kim.cmd("ZUNION", "2", "ka", "other"));
      assertEquals(noperm, kim.cmd("ZUNIONSTORE", "other", "1", "ka"));
      assertEquals(noperm, kim.cmd("ZMPOP", "2", "ka", "other", "MIN"));
      assertEquals(noperm, kim.cmd("SINTERCARD", "2", "ks", "other"));
    }
  }
}
