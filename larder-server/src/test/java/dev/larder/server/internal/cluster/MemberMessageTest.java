package dev.larder.server.internal.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The server's member messages: their bytes as the spec draws them, and a decoder that refuses. */
class MemberMessageTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void eachKindHasTheSpecsBytesAndDecodesToItself() {
    byte[] publish = new MemberMessage.Publish(utf8("ch"), utf8("hi")).encode();
    assertEquals("0101" + "02000000" + "6368" + "02000000" + "6869", hex(publish));
    MemberMessage.Publish p =
        assertInstanceOf(MemberMessage.Publish.class, MemberMessage.decode(publish));
    assertArrayEquals(utf8("ch"), p.channel());
    assertArrayEquals(utf8("hi"), p.message());

    byte[] invalidate = new MemberMessage.Invalidate(List.of(utf8("a"), utf8("bc"))).encode();
    assertEquals("0102" + "02000000" + "01000000" + "61" + "02000000" + "6263", hex(invalidate));
    MemberMessage.Invalidate i =
        assertInstanceOf(MemberMessage.Invalidate.class, MemberMessage.decode(invalidate));
    assertEquals(2, i.keys().size());
    assertArrayEquals(utf8("bc"), i.keys().get(1));

    assertEquals("0103", hex(new MemberMessage.Flush().encode()));
    assertInstanceOf(
        MemberMessage.Flush.class, MemberMessage.decode(HexFormat.of().parseHex("0103")));
    assertEquals("010401", hex(new MemberMessage.TrackingState(true).encode()));
    assertEquals(
        new MemberMessage.TrackingState(false), MemberMessage.decode(new byte[] {1, 4, 0}));
  }

  @Test
  void malformedMessagesAreRefused() {
    for (String bad :
        new String[] {
          "",
          "02 03",
          "01 09",
          "01 03 00",
          "01 04 02",
          "01 01 ff ffffff",
          "01 02 05000000",
          "01 01 02000000 6368"
        }) {
      byte[] bytes = HexFormat.of().parseHex(bad.replace(" ", ""));
      assertThrows(IllegalArgumentException.class, () -> MemberMessage.decode(bytes), bad);
    }
  }

  @Test
  void randomBytesDecodeOrAreRefusedWithIllegalArgument() {
    Random random = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      byte[] b = new byte[random.nextInt(24)];
      random.nextBytes(b);
      if (b.length > 0 && random.nextBoolean()) {
        b[0] = 1;
      }
      if (b.length > 1 && random.nextBoolean()) {
        b[1] = (byte) (1 + random.nextInt(4));
      }
      try {
        MemberMessage m = MemberMessage.decode(b);
        assertArrayEquals(b, m.encode(), "a message that decodes encodes to the same bytes");
      } catch (IllegalArgumentException expected) {
        // refused
      }
    }
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }
}
