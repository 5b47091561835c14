package dev.larder.bench.hitratio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TraceFormatTest {

  private static Trace read(TraceFormat format, byte[] bytes) throws IOException {
    Trace.Builder builder = new Trace.Builder();
    format.read(new ByteArrayInputStream(bytes), builder);
    return builder.build("t");
  }

  private static byte[] text(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void lirsSkipsBlankLinesAndMarkersAndCrlf() throws IOException {
    Trace trace = read(TraceFormat.LIRS, text("5\r\n*\r\n\r\n7\r\n5\n"));
    assertArrayEquals(new long[] {5, 7, 5}, trace.keys());
  }

  @Test
  void arcExpandsBlockRuns() throws IOException {
    Trace trace = read(TraceFormat.ARC, text("10 3 0 0\n4 1 0 1\n"));
    assertArrayEquals(new long[] {10, 11, 12, 4}, trace.keys());
  }

  @Test
  void int32IsBigEndianUnsigned() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(1);
    out.writeInt(-1);
    Trace trace = read(TraceFormat.INT32, bytes.toByteArray());
    assertArrayEquals(new long[] {1, 0xFFFF_FFFFL}, trace.keys());
  }

  @Test
  void int64IsBigEndian() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeLong(-5);
    out.writeLong(1L << 40);
    assertArrayEquals(
        new long[] {-5, 1L << 40}, read(TraceFormat.INT64, bytes.toByteArray()).keys());
  }

  @Test
  void adaptsizeCarriesSizes() throws IOException {
    Trace trace = read(TraceFormat.ADAPTSIZE, text("1 0 68\n2 1 7454\n"));
    assertArrayEquals(new long[] {0, 1}, trace.keys());
    assertArrayEquals(new int[] {68, 7454}, trace.weights());
  }

  @Test
  void addressIsHexadecimal() throws IOException {
    Trace trace = read(TraceFormat.ADDRESS, text("s 0x1fffff50 1\nl 0xff 2\n"));
    assertArrayEquals(new long[] {0x1fffff50L, 0xff}, trace.keys());
  }

  @Test
  void malformedLinesAreRejected() {
    assertThrows(IOException.class, () -> read(TraceFormat.LIRS, text("12x\n")));
    assertThrows(IOException.class, () -> read(TraceFormat.ADDRESS, text("l 12 1\n")));
    assertThrows(IOException.class, () -> read(TraceFormat.ADAPTSIZE, text("1 2\n")));
  }
}
