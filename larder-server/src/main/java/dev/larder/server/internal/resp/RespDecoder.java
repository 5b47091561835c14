package dev.larder.server.internal.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
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
 * string is copied out only once all of it has arrived.
 *
 * <p>Limits, so that no input allocates without bound: a count or length line of at most 32
 * bytes, an inline line of at most 64 KiB, at most 1,048,576 arguments, and at most
 * {@code maxRequestBytes} per request, counting 16 bytes of overhead for each argument. Input
 * past a limit, or that is not RESP, yields one {@link RespFrame.ProtocolError} worded as Redis
 * words it; everything after it is discarded, and the handler closes the connection.
 *
 * <p>Before the connection authenticates (when the server needs a password; the handler tells
 * the decoder through {@link #authenticated(boolean)}), Redis 7's tighter limits apply: at most
 * {@value #UNAUTHENTICATED_ARGS} arguments and {@value #UNAUTHENTICATED_BULK} bytes an argument,
 * so a client without the password cannot make the server hold large requests. In that state the
 * decoder hands on one request per call, so the handler has run (and perhaps authenticated) it
 * before the next request is measured against the limits.
 *
 * <p>Not thread-safe: one instance per channel, as Netty uses it.
 */
public final class RespDecoder extends ByteToMessageDecoder {
  static final int MAX_INLINE = 64 * 1024;
  static final int MAX_ARGS = 1024 * 1024;
  private static final int MAX_LENGTH_LINE = 32;
  private static final int ARG_OVERHEAD = 16;
  static final int UNAUTHENTICATED_ARGS = 10;
  static final int UNAUTHENTICATED_BULK = 16 * 1024;

  private final long maxRequestBytes;
  private List<byte[]> args;
  private int remaining;
  private long bulkLength = -1;
  private long requestBytes;
  private boolean failed;
  private boolean authenticated = true;

  /** @param maxRequestBytes the largest request accepted */
  public RespDecoder(long maxRequestBytes) {
    this.maxRequestBytes = maxRequestBytes;
  }

  /**
   * @param value whether the connection is authenticated; if not, the unauthenticated limits
   *     apply to the requests not yet decoded
   */
  public void authenticated(boolean value) {
    this.authenticated = value;
  }

  /** @return the bytes this decoder holds, waiting for the rest of a request */
  public int buffered() {
    return actualReadableBytes();
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    while (!failed && in.isReadable()) {
      String error = remaining == 0 ? startRequest(in, out) : continueRequest(in, out);
      if (error == WAIT) {
        return;
      }
      if (error != null) {
        failed = true;
        out.add(new RespFrame.ProtocolError("ERR Protocol error: " + error));
      } else if (!authenticated && !out.isEmpty()) {
        return;
      }
    }
    if (failed) {
      in.skipBytes(in.readableBytes());
    }
  }

  /** Marks "need more input"; compared by identity. */
  private static final String WAIT = new String("wait");

  private String startRequest(ByteBuf in, List<Object> out) {
    if (in.getByte(in.readerIndex()) != '*') {
      return inline(in, out);
    }
    int eol = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
    if (eol < 0) {
      return in.readableBytes() > MAX_LENGTH_LINE ? "too big mbulk count string" : WAIT;
    }
    long count = parseLength(in, in.readerIndex() + 1, eol);
    in.readerIndex(eol + 1);
    if (count == Long.MIN_VALUE || count > MAX_ARGS) {
      return "invalid multibulk length";
    }
    if (!authenticated && count > UNAUTHENTICATED_ARGS) {
      return "unauthenticated multibulk length";
    }
    if (count > 0) {
      remaining = (int) count;
      args = new ArrayList<>((int) Math.min(count, 16));
      requestBytes = 0;
    }
    return null;
  }

  private String continueRequest(ByteBuf in, List<Object> out) {
    if (bulkLength < 0) {
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
      requestBytes += Math.max(length, 0) + ARG_OVERHEAD;
      if (length < 0 || length > maxRequestBytes || requestBytes > maxRequestBytes) {
        return "invalid bulk length";
      }
      if (!authenticated && length > UNAUTHENTICATED_BULK) {
        return "unauthenticated bulk length";
      }
      bulkLength = length;
    }
    if (in.readableBytes() < bulkLength + 2) {
      return WAIT;
    }
    byte[] arg = new byte[(int) bulkLength];
    in.readBytes(arg);
    in.skipBytes(2);
    args.add(arg);
    bulkLength = -1;
    if (--remaining == 0) {
      out.add(new RespFrame.Command(args));
      args = null;
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
