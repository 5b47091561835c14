package dev.larder.server.internal.memcache;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes memcached's text and meta protocols into {@link MemcacheFrame}s: a command line
 * (ended by LF, optionally CRLF), and, for the storage commands ({@code set add replace append
 * prepend cas ms}), the data block of the length the line gives followed by CRLF.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A storage command is consumed only when its data block has fully arrived, so its line is
 * looked at again on each read until then (lines are short). Limits: a line of at most 64 KiB
 * (longer closes the connection with {@code CLIENT_ERROR line too long}); a data block of at
 * most {@code maxItemBytes}: a longer one is answered {@code SERVER_ERROR object too large for
 * cache} and its bytes are skipped as they arrive, never buffered, as memcached does. A bad
 * length gives {@code CLIENT_ERROR bad command line format}; a block not followed by CRLF gives
 * {@code CLIENT_ERROR bad data chunk}.
 *
 * <p>Not thread-safe: one instance per channel.
 */
public final class MemcacheDecoder extends ByteToMessageDecoder {
  static final int MAX_LINE = 64 * 1024;
  private final int maxItemBytes;
  private long skipping;

  /** @param maxItemBytes the largest data block accepted */
  public MemcacheDecoder(int maxItemBytes) {
    this.maxItemBytes = maxItemBytes;
  }

  /** @return the bytes this decoder holds, waiting for the rest of a request */
  public int buffered() {
    return actualReadableBytes();
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    while (in.isReadable()) {
      if (skipping > 0) {
        int n = (int) Math.min(skipping, in.readableBytes());
        in.skipBytes(n);
        skipping -= n;
        continue;
      }
      int eol = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
      if (eol < 0 || eol - in.readerIndex() > MAX_LINE) {
        if (eol >= 0 || in.readableBytes() > MAX_LINE) {
          out.add(new MemcacheFrame.Error("CLIENT_ERROR line too long", true));
          in.skipBytes(in.readableBytes());
        }
        return;
      }
      int lineEnd = eol > in.readerIndex() && in.getByte(eol - 1) == '\r' ? eol - 1 : eol;
      List<byte[]> tokens = tokens(in, in.readerIndex(), lineEnd);
      int lengthAt = dataLengthPosition(tokens);
      if (lengthAt < 0) {
        in.readerIndex(eol + 1);
        out.add(new MemcacheFrame.Command(tokens, null));
        continue;
      }
      long length = lengthAt < tokens.size() ? parseLength(tokens.get(lengthAt)) : -1;
      if (length < 0) {
        in.readerIndex(eol + 1);
        out.add(new MemcacheFrame.Error("CLIENT_ERROR bad command line format", false));
        continue;
      }
      if (length > maxItemBytes) {
        in.readerIndex(eol + 1);
        skipping = length + 2;
        out.add(new MemcacheFrame.Error("SERVER_ERROR object too large for cache", false));
        continue;
      }
      if (in.writerIndex() - (eol + 1) < length + 2) {
        return;
      }
      in.readerIndex(eol + 1);
      byte[] data = new byte[(int) length];
      in.readBytes(data);
      if (in.readByte() != '\r' || in.readByte() != '\n') {
        out.add(new MemcacheFrame.Error("CLIENT_ERROR bad data chunk", false));
      } else {
        out.add(new MemcacheFrame.Command(tokens, data));
      }
    }
  }

  /** The token index holding the data length, or -1 if the command has no data block. */
  private static int dataLengthPosition(List<byte[]> tokens) {
    if (tokens.isEmpty()) {
      return -1;
    }
    return switch (new String(tokens.getFirst(), java.nio.charset.StandardCharsets.US_ASCII)) {
      case "set", "add", "replace", "append", "prepend", "cas" -> 4;
      case "ms" -> 2;
      default -> -1;
    };
  }

  private static long parseLength(byte[] token) {
    if (token.length == 0 || token.length > 10) {
      return -1;
    }
    long v = 0;
    for (byte b : token) {
      if (b < '0' || b > '9') {
        return -1;
      }
      v = v * 10 + (b - '0');
    }
    return v;
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
        byte[] t = new byte[i - start];
        in.getBytes(start, t);
        tokens.add(t);
      }
    }
    return tokens;
  }
}
