package dev.larder.server.internal.memcache;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.larder.server.internal.TestServer;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The meta commands' parsing fuzzed: random lines of mg, ms, md, ma, mn and me with random keys
 * (plain, base64, too long, with control bytes) and random flags (known and unknown letters, tokens
 * of digits, signs, boundary numbers and junk, repeated flags, too many words), and data blocks of
 * the announced length or not. Every reply must be one of the meta protocol's status lines (with a
 * value after {@code VA}) or an {@code ERROR}, {@code CLIENT_ERROR} or {@code SERVER_ERROR} line;
 * nothing may escape as an exception, the whole run is bounded in time, and no reply may grow past
 * the item it shows.
 */
class MetaCommandFuzzTest {
  private static final String[] COMMANDS = {"mg", "ms", "md", "ma", "mn", "me"};
  private static final String FLAG_LETTERS = "bNTRlOPLkstcfvhuqFCMJDIEXWZxyA+-";
  private static final String[] NUMBERS = {
    "",
    "0",
    "1",
    "-1",
    "+5",
    "30",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "1x",
    "x",
    "S",
    "E",
    "A",
    "P",
    "R",
    "I",
    "D",
    "+",
    "-",
    "SS",
  };

  @Test
  @Timeout(60)
  void randomMetaLinesGetOnlyProtocolReplies() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.memcache();
      SplittableRandom r = new SplittableRandom(20261129);
      for (int i = 0; i < 20_000; i++) {
        String request = request(r);
        String reply = c.raw(request.getBytes(StandardCharsets.ISO_8859_1));
        check(request, reply);
        if (!c.channel.isActive()) {
          c = server.memcache();
        }
        if (r.nextInt(50) == 0) {
          server.now.addAndGet(r.nextInt(120_000));
        }
      }
    }
  }

  private static String request(SplittableRandom r) {
    StringBuilder line = new StringBuilder(COMMANDS[r.nextInt(COMMANDS.length)]);
    boolean ms = line.toString().equals("ms");
    if (r.nextInt(20) != 0) {
      line.append(' ').append(key(r));
    }
    int dataLength = r.nextInt(8);
    if (ms && r.nextInt(10) != 0) {
      line.append(' ').append(r.nextInt(10) == 0 ? NUMBERS[r.nextInt(NUMBERS.length)] : dataLength);
    }
    int flags = r.nextInt(25) == 0 ? 25 : r.nextInt(6);
    for (int f = 0; f < flags; f++) {
      line.append(' ').append(FLAG_LETTERS.charAt(r.nextInt(FLAG_LETTERS.length())));
      if (r.nextBoolean()) {
        line.append(NUMBERS[r.nextInt(NUMBERS.length)]);
      } else if (r.nextInt(10) == 0) {
        line.append((char) r.nextInt(1, 256));
      }
    }
    line.append("\r\n");
    if (ms) {
      int length = r.nextInt(5) == 0 ? r.nextInt(8) : dataLength;
      line.append("v".repeat(length)).append("\r\n");
    }
    return line.toString().replace("\n\r\n", "\r\n");
  }

  private static String key(SplittableRandom r) {
    return switch (r.nextInt(6)) {
      case 0 -> "YQ==";
      case 1 -> "!!";
      case 2 -> "k".repeat(r.nextInt(240, 260));
      case 3 -> "k\u0001\u00ff";
      default -> new String[] {"a", "b", "n"}[r.nextInt(3)];
    };
  }

  private static final String[] STATUS = {
    "HD", "VA ", "EN", "NF", "NS", "EX", "MN", "ME ", "ERROR", "CLIENT_ERROR ", "SERVER_ERROR "
  };

  /** Walks the reply: status lines, and after VA the value of the length it gives. */
  private static void check(String request, String reply) {
    assertTrue(reply.length() < 64 * 1024, () -> "a reply of " + reply.length() + " bytes");
    int at = 0;
    while (at < reply.length()) {
      int end = reply.indexOf("\r\n", at);
      if (end < 0) {
        fail("an unterminated reply line to " + show(request) + ": " + show(reply));
      }
      String line = reply.substring(at, end);
      if (!known(line)) {
        fail("reply " + show(line) + " to " + show(request));
      }
      at = end + 2;
      if (line.startsWith("VA ")) {
        int length = Integer.parseInt(line.split(" ", -1)[1]);
        if (!reply.startsWith("\r\n", at + length)) {
          fail("a value not of its length in " + show(reply) + " to " + show(request));
        }
        at += length + 2;
      }
    }
  }

  private static boolean known(String line) {
    for (String s : STATUS) {
      if (line.startsWith(s)) {
        return true;
      }
    }
    return false;
  }

  private static String show(String s) {
    return s.replace("\r", "\\r").replace("\n", "\\n");
  }
}
