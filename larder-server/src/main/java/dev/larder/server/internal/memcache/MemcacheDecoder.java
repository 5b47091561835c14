package dev.larder.server.internal.memcache;

import dev.larder.server.internal.net.ClientConnection;
import dev.larder.server.internal.net.RequestDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes memcached's text and meta protocols into {@link MemcacheFrame}s: a command line (ended by
 * LF, optionally CRLF), and, for the storage commands ({@code set add replace append prepend cas
 * ms}), the data block of the length the line gives followed by CRLF.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>One request per {@code decode} call (see {@link RequestDecoder}). A storage command is
 * consumed only when its data block has fully arrived, so its line is looked at again on each read
 * until then (lines are short). A storage line has a data block only with memcached's word count (5
 * or 6 words, {@code cas} 6 or 7); otherwise it is a command without data, which the handler
 * answers ERROR, so the next line is not taken as data.
 *
 * <p>Limits. A line of at most {@value #MAX_LINE} bytes: longer closes the connection with {@code
 * CLIENT_ERROR line too long}, except a retrieval line (get, gets, gat, gats), which memcached
 * serves at any length: its keys are handed on in {@link MemcacheFrame.Keys} as they arrive (each
 * complete key, one that a space follows) once {@value #STREAM_FROM} bytes of it are buffered, so
 * the decoder holds at most a read and a partial key. A data length must be a decimal from 0 to
 * {@value #MAX_DATA_LENGTH} (its length and CRLF fit memcached's signed 32-bit count; {@code +} and
 * leading zeros allowed): anything else is {@code CLIENT_ERROR bad command line format} and no data
 * is read, as memcached 1.6 answers. A block above {@code maxItemBytes} is answered {@code
 * SERVER_ERROR object too large for cache}; up to {@code maxRequestBytes} its bytes are skipped as
 * they arrive, never buffered, as memcached does; beyond it the connection is closed after the
 * reply instead, so no announced length makes the server read for long (memcached would skip up to
 * 2 GiB). A block not followed by CRLF gives {@code CLIENT_ERROR bad data chunk}.
 *
 * <p>Not thread-safe: one instance per channel.
 */
public final class MemcacheDecoder extends RequestDecoder {
  static final int MAX_LINE = 64 * 1024;
  static final long MAX_DATA_LENGTH = Integer.MAX_VALUE - 2;

  /** A retrieval line without its end past this many bytes is streamed. */
  static final int STREAM_FROM = 1024;

  private final int maxItemBytes;
  private final long maxRequestBytes;
  private long skipping;

  /** The words before the keys of a long retrieval line being streamed, else null. */
  private List<byte[]> streaming;

  /** Whether the rest of the current line is being discarded (after an error in it). */
  private boolean discardingLine;

  private boolean closed;

  /** Whether a data block is arriving (or being skipped): {@code stats conns}'s conn_nread. */
  private volatile boolean readingData;

  private final MemcacheStats stats;

  /**
   * @param maxItemBytes the largest data block accepted
   * @param maxRequestBytes the largest data block skipped; a larger one closes the connection
   * @param connection the connection this decoder serves
   */
  public MemcacheDecoder(int maxItemBytes, long maxRequestBytes, ClientConnection connection) {
    this(maxItemBytes, maxRequestBytes, connection, null);
  }

  /**
   * @param maxItemBytes the largest data block accepted
   * @param maxRequestBytes the largest data block skipped; a larger one closes the connection
   * @param connection the connection this decoder serves
   * @param stats where to count the bytes read ({@code bytes_read}), or null
   */
  public MemcacheDecoder(
      int maxItemBytes, long maxRequestBytes, ClientConnection connection, MemcacheStats stats) {
    super(connection);
    this.stats = stats;
    this.maxItemBytes = maxItemBytes;
    this.maxRequestBytes = maxRequestBytes;
  }

  /** Returns whether a data block is arriving; safe from any thread (a hint). */
  boolean readingData() {
    return readingData;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (stats != null && msg instanceof ByteBuf b) {
      stats.bytesRead.add(b.readableBytes());
    }
    super.channelRead(ctx, msg);
  }

  @Override
  public long heldBytes() {
    return actualReadableBytes();
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (closed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    decodeAll(in, out);
    readingData = skipping > 0 || awaitingData;
  }

  /** Whether the last request seen is a storage line whose data block has not all arrived. */
  private boolean awaitingData;

  private void decodeAll(ByteBuf in, List<Object> out) {
    awaitingData = false;
    while (in.isReadable() && out.isEmpty()) {
      if (skipping > 0) {
        int n = (int) Math.min(skipping, in.readableBytes());
        in.skipBytes(n);
        skipping -= n;
      } else if (discardingLine) {
        int eol = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
        in.readerIndex(eol < 0 ? in.writerIndex() : eol + 1);
        discardingLine = eol < 0;
      } else if (!connection.accepting()) {
        return;
      } else if (streaming != null) {
        if (!streamKeys(in, out)) {
          return;
        }
      } else if (!request(in, out)) {
        return;
      }
    }
  }

  /** Decodes one request; false if it needs more input. */
  private boolean request(ByteBuf in, List<Object> out) {
    int eol = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
    if (eol < 0 || eol - in.readerIndex() > MAX_LINE) {
      if ((eol >= 0 || in.readableBytes() > STREAM_FROM) && startStreaming(in)) {
        return true;
      }
      if (in.readableBytes() <= MAX_LINE) {
        return false;
      }
      out.add(new MemcacheFrame.Error("CLIENT_ERROR line too long", true));
      closed = true;
      in.skipBytes(in.readableBytes());
      return true;
    }
    int lineEnd = eol > in.readerIndex() && in.getByte(eol - 1) == '\r' ? eol - 1 : eol;
    List<byte[]> tokens = tokens(in, in.readerIndex(), lineEnd);
    int lengthAt = dataLengthPosition(tokens);
    if (lengthAt < 0) {
      in.readerIndex(eol + 1);
      out.add(new MemcacheFrame.Command(tokens, null));
      return true;
    }
    long length = lengthAt < tokens.size() ? parseLength(tokens.get(lengthAt)) : -1;
    if (length < 0) {
      in.readerIndex(eol + 1);
      out.add(new MemcacheFrame.Error("CLIENT_ERROR bad command line format", false));
      return true;
    }
    if (length > maxItemBytes) {
      in.readerIndex(eol + 1);
      boolean close = length > maxRequestBytes;
      if (close) {
        closed = true;
      } else {
        skipping = length + 2;
      }
      out.add(new MemcacheFrame.TooLarge(tokens, close));
      return true;
    }
    if (in.writerIndex() - (eol + 1) < length + 2) {
      awaitingData = true;
      return false;
    }
    in.readerIndex(eol + 1);
    byte[] data = new byte[(int) length];
    in.readBytes(data);
    if (in.readByte() != '\r' || in.readByte() != '\n') {
      out.add(new MemcacheFrame.Error("CLIENT_ERROR bad data chunk", false));
    } else {
      out.add(new MemcacheFrame.Command(tokens, data));
    }
    return true;
  }

  /**
   * Starts streaming a retrieval line longer than the cap: consumes its command (and expiry) and
   * returns true; false if the line is no retrieval line or its first words have not arrived.
   */
  private boolean startStreaming(ByteBuf in) {
    int from = in.readerIndex();
    int limit = Math.min(in.writerIndex(), from + 64);
    int end = wordEnd(in, from, limit);
    if (end < 0) {
      return false;
    }
    String name = new String(bytes(in, from, end), StandardCharsets.US_ASCII);
    int words =
        switch (name) {
          case "get", "gets" -> 1;
          case "gat", "gats" -> 2;
          default -> 0;
        };
    if (words == 0) {
      return false;
    }
    List<byte[]> head = new ArrayList<>(2);
    head.add(bytes(in, from, end));
    int at = end;
    if (words == 2) {
      int start = skipSpaces(in, at, limit);
      int expEnd = start < 0 ? -1 : wordEnd(in, start, limit);
      if (expEnd < 0) {
        return false;
      }
      head.add(bytes(in, start, expEnd));
      at = expEnd;
    }
    in.readerIndex(at);
    streaming = head;
    return true;
  }

  /** Hands on the complete keys of a streamed line; false if none are complete yet. */
  private boolean streamKeys(ByteBuf in, List<Object> out) {
    int eol = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
    int end;
    if (eol >= 0) {
      end = eol > in.readerIndex() && in.getByte(eol - 1) == '\r' ? eol - 1 : eol;
    } else {
      end = lastSpace(in);
      if (end < 0) {
        if (in.readableBytes() > MemcacheSession.MAX_KEY + 1) {
          return badKey(in, out);
        }
        return false;
      }
    }
    List<byte[]> keys = tokens(in, in.readerIndex(), end);
    for (byte[] key : keys) {
      if (key.length > MemcacheSession.MAX_KEY) {
        return badKey(in, out);
      }
    }
    boolean last = eol >= 0;
    in.readerIndex(last ? eol + 1 : end + 1);
    if (!keys.isEmpty() || last) {
      out.add(new MemcacheFrame.Keys(streaming, keys, last));
    }
    if (last) {
      streaming = null;
    }
    return true;
  }

  /** A key over 250 bytes in a streamed line: the line's error, and the rest of it skipped. */
  private boolean badKey(ByteBuf in, List<Object> out) {
    streaming = null;
    discardingLine = true;
    out.add(new MemcacheFrame.Error("CLIENT_ERROR bad command line format", false));
    int eol = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
    in.readerIndex(eol < 0 ? in.writerIndex() : eol + 1);
    discardingLine = eol < 0;
    return true;
  }

  private static int lastSpace(ByteBuf in) {
    for (int i = in.writerIndex() - 1; i >= in.readerIndex(); i--) {
      if (in.getByte(i) == ' ') {
        return i;
      }
    }
    return -1;
  }

  /** The end of the word at from (the index of the space after it), or -1 if none in limit. */
  private static int wordEnd(ByteBuf in, int from, int limit) {
    for (int i = from; i < limit; i++) {
      if (in.getByte(i) == ' ') {
        return i == from ? -1 : i;
      }
    }
    return -1;
  }

  private static int skipSpaces(ByteBuf in, int from, int limit) {
    for (int i = from; i < limit; i++) {
      if (in.getByte(i) != ' ') {
        return i;
      }
    }
    return -1;
  }

  private static byte[] bytes(ByteBuf in, int from, int to) {
    byte[] b = new byte[to - from];
    in.getBytes(from, b);
    return b;
  }

  /**
   * The token index holding the data length, or -1 if the line has no data block: not a storage
   * command, or not memcached's word count for one (then the handler answers ERROR).
   */
  private static int dataLengthPosition(List<byte[]> tokens) {
    if (tokens.isEmpty()) {
      return -1;
    }
    int n = tokens.size();
    return switch (new String(tokens.getFirst(), StandardCharsets.US_ASCII)) {
      case "set", "add", "replace", "append", "prepend" -> n == 5 || n == 6 ? 4 : -1;
      case "cas" -> n == 6 || n == 7 ? 4 : -1;
      // memcached reads no data for an ms line it refuses before its flags: no length, a key
      // over 250 bytes, too many words
      case "ms" ->
          n >= 3 && n <= MetaFlags.MAX_WORDS && tokens.get(1).length <= MemcacheSession.MAX_KEY
              ? 2
              : -1;
      default -> -1;
    };
  }

  /** A data length as memcached takes it (see the class notes); -1 if not one. */
  private static long parseLength(byte[] token) {
    int i = token.length > 0 && token[0] == '+' ? 1 : 0;
    if (i == token.length || token.length - i > 19) {
      return -1;
    }
    long v = 0;
    for (; i < token.length; i++) {
      byte b = token[i];
      if (b < '0' || b > '9') {
        return -1;
      }
      v = v * 10 + (b - '0');
    }
    return v > MAX_DATA_LENGTH ? -1 : v;
  }

  private static List<byte[]> tokens(ByteBuf in, int from, int to) {
    List<byte[]> tokens = new ArrayList<>();
    int i = from;
    while (i < to) {
      while (i < to && in.getByte(i) == ' ') {
        i++;
      }
      int start = i;
      while (i < to && in.getByte(i) != ' ') {
        i++;
      }
      if (i > start) {
        tokens.add(bytes(in, start, i));
      }
    }
    return tokens;
  }
}
