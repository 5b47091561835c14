package dev.larder.server.internal.resp;

import dev.larder.server.internal.net.ClientConnection;
import dev.larder.server.internal.net.RequestDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes RESP requests: multibulk arrays of bulk strings ({@code *2\r\n$3\r\nGET\r\n...}) and
 * inline commands (a line of words, with Redis's quoting), into {@link RespFrame}s.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The decoder keeps its place between reads (arguments still expected, the length of the bulk
 * string being waited for), so a request arriving a byte at a time costs no re-parsing. A bulk
 * string shorter than {@value #LARGE_BULK} bytes is copied out once all of it has arrived; a longer
 * one is allocated whole when its length arrives (after the connection's memory limits have counted
 * it, {@link ClientConnection#reserveInput}) and filled as its bytes arrive, so the input buffer
 * never grows to hold it (Redis does the same for large arguments).
 *
 * <p>Limits, so that no input allocates without bound: a count or length line of at most 32 bytes,
 * an inline line of at most 64 KiB, at most 1,048,576 arguments, and at most {@code
 * maxRequestBytes} per request, counting 16 bytes of overhead for each argument. Input past a
 * limit, or that is not RESP, yields one {@link RespFrame.ProtocolError} worded as Redis words it;
 * everything after it is discarded, and the handler closes the connection.
 *
 * <p>Before the connection authenticates (when the server needs a password; the decoder asks its
 * {@link ClientConnection}), Redis 7's tighter limits apply: at most {@value #UNAUTHENTICATED_ARGS}
 * arguments and {@value #UNAUTHENTICATED_BULK} bytes an argument, so a client without the password
 * cannot make the server hold large requests. The decoder hands on one request per call, so the
 * request before (perhaps an AUTH) has run when the next one is measured against the limits.
 *
 * <p>Not thread-safe: one instance per channel, as Netty uses it.
 */
public final class RespDecoder extends RequestDecoder {
  static final int MAX_INLINE = 64 * 1024;
  static final int MAX_ARGS = 1024 * 1024;
  static final int LARGE_BULK = 64 * 1024;
  private static final int MAX_LENGTH_LINE = 32;
  private static final int ARG_OVERHEAD = 16;
  static final int UNAUTHENTICATED_ARGS = 10;
  static final int UNAUTHENTICATED_BULK = 16 * 1024;
  private static final int PRESIZED_ARGS = 1024;

  private final long maxRequestBytes;
  private List<byte[]> args;
  private int remaining;
  private long bulkLength = -1;

  /** A large bulk string being filled as it arrives, else null. */
  private byte[] large;

  private int largeFilled;
  private long requestBytes;

  /** Bytes of the arguments of the current request decoded so far. */
  private long argBytes;

  private boolean failed;

  /**
   * @param maxRequestBytes the largest request accepted
   * @param connection the connection this decoder serves
   */
  public RespDecoder(long maxRequestBytes, ClientConnection connection) {
    super(connection);
    this.maxRequestBytes = maxRequestBytes;
  }

  @Override
  public long heldBytes() {
    return actualReadableBytes() + argBytes + (large == null ? 0 : large.length);
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // WAIT, DISCONNECTED: sentinel strings, not messages
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (!connection.accepting()) {
      return;
    }
    while (in.isReadable()) {
      String error = remaining == 0 ? startRequest(in, out) : continueRequest(in, out);
      if (error == WAIT) {
        return;
      }
      if (error != null) {
        failed = true;
        if (error != DISCONNECTED) {
          out.add(new RespFrame.ProtocolError("ERR Protocol error: " + error));
        }
        in.skipBytes(in.readableBytes());
        return;
      }
      if (!out.isEmpty()) {
        return;
      }
    }
  }

  /** Marks "need more input"; compared by identity. */
  private static final String WAIT = new String("wait");

  /** Marks "a memory limit closed the connection": no reply; compared by identity. */
  private static final String DISCONNECTED = new String("disconnected");

  private String startRequest(ByteBuf in, List<Object> out) {
    if (in.getByte(in.readerIndex()) != '*') {
      return inline(in, out);
    }
    long count = simpleLengthLine(in, (byte) '*');
    if (count < 0) {
      int eol = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
      if (eol < 0) {
        return in.readableBytes() > MAX_LENGTH_LINE ? "too big mbulk count string" : WAIT;
      }
      count = parseLength(in, in.readerIndex() + 1, eol);
      in.readerIndex(eol + 1);
    }
    if (count == Long.MIN_VALUE || count > MAX_ARGS) {
      return "invalid multibulk length";
    }
    // Asked only past the unauthenticated limit: most requests are within it.
    if (count > UNAUTHENTICATED_ARGS && !connection.authenticated()) {
      return "unauthenticated multibulk length";
    }
    if (count > 0) {
      remaining = (int) count;
      // Sized for the whole request (MSET's 21 arguments grew a list of 16 on every request), but
      // not from the count alone: a count line costs the client a few bytes.
      args = new ArrayList<>((int) Math.min(count, PRESIZED_ARGS));
      requestBytes = 0;
    }
    return null;
  }

  private String continueRequest(ByteBuf in, List<Object> out) {
    if (bulkLength < 0) {
      String error = bulkHeader(in);
      if (error != null) {
        return error;
      }
    }
    byte[] arg;
    if (large != null) {
      int n = Math.min(in.readableBytes(), large.length - largeFilled);
      in.readBytes(large, largeFilled, n);
      largeFilled += n;
      if (largeFilled < large.length || in.readableBytes() < 2) {
        return WAIT;
      }
      arg = large;
      large = null;
    } else {
      if (in.readableBytes() < bulkLength + 2) {
        return WAIT;
      }
      arg = new byte[(int) bulkLength];
      in.readBytes(arg);
    }
    in.skipBytes(2);
    args.add(arg);
    argBytes += arg.length;
    bulkLength = -1;
    if (--remaining == 0) {
      out.add(new RespFrame.Command(args));
      args = null;
      argBytes = 0;
    }
    return null;
  }

  /** Reads a {@code $length} line; a large length is counted and allocated here. */
  private String bulkHeader(ByteBuf in) {
    long simple = simpleLengthLine(in, (byte) '$');
    if (simple >= 0) {
      return acceptBulkLength(simple);
    }
    int eol = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
    if (eol < 0) {
      return in.readableBytes() > MAX_LENGTH_LINE ? "too big bulk count string" : WAIT;
    }
    byte first = in.getByte(in.readerIndex());
    if (first != '$') {
      return "expected '$', got '" + (char) (first & 0xFF) + "'";
    }
    long length = parseLength(in, in.readerIndex() + 1, eol);
    in.readerIndex(eol + 1);
    return acceptBulkLength(length);
  }

  /**
   * Reads a length line ({@code *count} or {@code $length}) in one pass when it has the form every
   * client sends ({@code kind}, one to {@value #SIMPLE_DIGITS} digits, CR LF, all of it readable),
   * leaving the reader past it; else reads nothing, and the general path ({@link #parseLength}
   * after a search for the line's end) reads the line and words its errors.
   *
   * @param kind the line's first byte, {@code *} or {@code $}
   * @return the length, or -1 if the line is not of that form (or not all here yet)
   */
  private static long simpleLengthLine(ByteBuf in, byte kind) {
    int from = in.readerIndex();
    int end = Math.min(in.writerIndex(), from + SIMPLE_DIGITS + 3);
    if (end - from < 4 || in.getByte(from) != kind) {
      return -1;
    }
    long value = 0;
    for (int i = from + 1; i < end; i++) {
      byte b = in.getByte(i);
      if (b >= '0' && b <= '9') {
        value = value * 10 + (b - '0');
      } else if (b == '\r' && i > from + 1 && i + 1 < end && in.getByte(i + 1) == '\n') {
        in.readerIndex(i + 2);
        return value;
      } else {
        return -1;
      }
    }
    return -1;
  }

  /** Digits a length line may have to be read by {@link #simpleLengthLine}. */
  private static final int SIMPLE_DIGITS = 18;

  /** Checks a bulk string's length against the limits, and counts and allocates a large one. */
  private String acceptBulkLength(long length) {
    requestBytes += Math.max(length, 0) + ARG_OVERHEAD;
    if (length < 0 || length > maxRequestBytes || requestBytes > maxRequestBytes) {
      return "invalid bulk length";
    }
    if (length > UNAUTHENTICATED_BULK && !connection.authenticated()) {
      return "unauthenticated bulk length";
    }
    bulkLength = length;
    if (length >= LARGE_BULK) {
      if (!connection.reserveInput(length)) {
        return DISCONNECTED;
      }
      large = new byte[(int) length];
      largeFilled = 0;
    }
    return null;
  }

  private static String inline(ByteBuf in, List<Object> out) {
    int eol = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
    if (eol < 0) {
      return in.readableBytes() > MAX_INLINE ? "too big inline request" : WAIT;
    }
    if (eol - in.readerIndex() > MAX_INLINE) {
      return "too big inline request";
    }
    byte[] line = new byte[eol - in.readerIndex()];
    in.readBytes(line);
    in.skipBytes(1);
    List<byte[]> words = InlineSplitter.split(line);
    if (words == null) {
      return "unbalanced quotes in request";
    }
    if (!words.isEmpty()) {
      out.add(new RespFrame.Command(words));
    }
    return null;
  }

  /** Parses a decimal between from and the CR before eol; Long.MIN_VALUE if malformed. */
  private static long parseLength(ByteBuf in, int from, int eol) {
    int end = eol > from && in.getByte(eol - 1) == '\r' ? eol - 1 : eol;
    if (end <= from || end - from > 19) {
      return Long.MIN_VALUE;
    }
    boolean negative = in.getByte(from) == '-';
    int i = negative ? from + 1 : from;
    if (i == end) {
      return Long.MIN_VALUE;
    }
    long value = 0;
    for (; i < end; i++) {
      byte b = in.getByte(i);
      if (b < '0' || b > '9') {
        return Long.MIN_VALUE;
      }
      value = value * 10 + (b - '0');
    }
    return negative ? -value : value;
  }
}
