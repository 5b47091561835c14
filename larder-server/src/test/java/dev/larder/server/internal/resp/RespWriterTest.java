package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.server.internal.net.ReplyLimitExceeded;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Bulk strings written the same into heap buffers (through their array) and direct ones. */
class RespWriterTest {
  private static String written(ByteBuf out, byte[] b, int offset, int length) {
    RespWriter w = new RespWriter();
    w.target(out);
    w.array(2);
    w.bulk(b, offset, length);
    w.integer(-42);
    String s = out.toString(StandardCharsets.ISO_8859_1);
    out.release();
    return s;
  }

  @Test
  void heapAndDirectBuffersGetTheSameBytes() {
    for (int length : new int[] {0, 1, 9, 10, 99, 100, 1000, 70_000}) {
      byte[] b = new byte[length + 3];
      Arrays.fill(b, (byte) 'x');
      b[0] = 'a';
      b[b.length - 1] = 'z';
      String expected = "*2\r\n$" + length + "\r\n" + "x".repeat(length) + "\r\n:-42\r\n";
      // small initial capacities: both must grow
      assertEquals(expected, written(Unpooled.buffer(4), b, 1, length), "heap " + length);
      assertEquals(expected, written(Unpooled.directBuffer(4), b, 1, length), "direct " + length);
    }
  }

  @Test
  void aBulkPastTheBuffersLimitIsRefusedUnwritten() {
    ByteBuf out = Unpooled.buffer(16, 4096);
    RespWriter w = new RespWriter();
    w.target(out);
    assertThrows(ReplyLimitExceeded.class, () -> w.bulk(new byte[4000]));
    assertEquals(0, out.readableBytes());
    out.release();
  }
}
