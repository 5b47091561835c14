package dev.larder.server.internal.resp;

import dev.larder.server.internal.net.Decimal;
import dev.larder.server.internal.net.ReplyLimitExceeded;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Writes RESP replies into a buffer, in RESP2 or RESP3 as the connection negotiated (HELLO). Where
 * RESP3 has a type RESP2 lacks, the RESP2 form is the one Redis sends: maps and sets as flat
 * arrays, doubles as bulk strings, nulls as {@code $-1} or {@code *-1}.
 *
 * <p>Bulk strings are checked against the reply buffer's limit before they are written ({@link
 * ReplyLimitExceeded}); every large reply is made of them.
 *
 * <p>Not thread-safe: one per connection, used on its event loop.
 */
public final class RespWriter {
  /** CR then LF, as one big-endian short. */
  private static final int CRLF_SHORT = '\r' << 8 | '\n';

  private static final byte[] OK = {'+', 'O', 'K', '\r', '\n'};
  private static final byte[] NULL2 = {'$', '-', '1', '\r', '\n'};
  private static final byte[] NULL3 = {'_', '\r', '\n'};
  private static final byte[] NULL_ARRAY2 = {'*', '-', '1', '\r', '\n'};
  private ByteBuf out;
  private int protocol = 2;

  /**
   * Sets the buffer replies go into.
   *
   * @param out the buffer replies go into
   */
  public void target(ByteBuf out) {
    this.out = out;
  }

  /** Returns the buffer replies go into. */
  public ByteBuf target() {
    return out;
  }

  /** Returns 2 or 3. */
  public int protocol() {
    return protocol;
  }

  /**
   * Sets the protocol version replies are written in.
   *
   * @param protocol 2 or 3
   */
  public void protocol(int protocol) {
    this.protocol = protocol;
  }

  /**
   * Writes a simple string (status) reply.
   *
   * @param s a status line such as OK
   */
  public void simple(String s) {
    out.writeByte('+');
    ascii(s);
  }

  /** Writes {@code +OK}. */
  public void ok() {
    out.writeBytes(OK);
  }

  /**
   * Writes an error reply.
   *
   * @param message the error line, starting with its code (ERR, WRONGTYPE...)
   */
  public void error(String message) {
    out.writeByte('-');
    ascii(message.replace('\r', ' ').replace('\n', ' '));
  }

  /**
   * Writes an integer reply.
   *
   * @param n an integer reply
   */
  public void integer(long n) {
    out.writeByte(':');
    Decimal.writeSigned(out, n);
    crlf();
  }

  /**
   * Writes an integer reply from its decimal text, as stored (INCR's value), without parsing it.
   *
   * @param decimal a strict decimal long's ASCII bytes (not checked)
   */
  public void integerText(byte[] decimal) {
    out.ensureWritable(decimal.length + 3);
    out.writeByte(':');
    out.writeBytes(decimal);
    crlf();
  }

  /**
   * Writes a bulk string reply.
   *
   * @param b a bulk string, or null for the null reply
   */
  public void bulk(byte[] b) {
    if (b == null) {
      nullValue();
      return;
    }
    bulk(b, 0, b.length);
  }

  /**
   * Writes part of an array as a bulk string reply.
   *
   * @param b an array holding a bulk string
   * @param offset where it starts
   * @param length its length
   */
  public void bulk(byte[] b, int offset, int length) {
    ReplyLimitExceeded.check(out, length);
    // '$', at most 10 digits, two CRLFs
    out.ensureWritable(length + 16);
    if (out.hasArray()) {
      // Straight into the heap buffer's array: an array reply of short elements made six checked
      // buffer calls an element, and their capacity and liveness checks were a quarter of LRANGE's
      // event-loop samples.
      byte[] a = out.array();
      int start = out.arrayOffset() + out.writerIndex();
      int at = start;
      a[at++] = '$';
      at = Decimal.put(a, at, length);
      a[at++] = '\r';
      a[at++] = '\n';
      System.arraycopy(b, offset, a, at, length);
      at += length;
      a[at++] = '\r';
      a[at++] = '\n';
      out.writerIndex(out.writerIndex() + (at - start));
      return;
    }
    out.writeByte('$');
    decimal(length);
    out.writeBytes(b, offset, length);
    crlf();
  }

  /** Writes a non-negative int in decimal, then CRLF, without building a String. */
  private void decimal(int n) {
    Decimal.writeUnsigned(out, n);
    crlf();
  }

  private void crlf() {
    out.writeShort(CRLF_SHORT);
  }

  /**
   * Writes a string as a bulk string reply in UTF-8.
   *
   * @param s a bulk string in UTF-8
   */
  public void bulk(String s) {
    bulk(s.getBytes(StandardCharsets.UTF_8));
  }

  /** Writes the null bulk string (RESP3: null). */
  public void nullValue() {
    out.writeBytes(protocol == 3 ? NULL3 : NULL2);
  }

  /** Writes the null array (RESP3: null). */
  public void nullArray() {
    out.writeBytes(protocol == 3 ? NULL3 : NULL_ARRAY2);
  }

  /**
   * Writes an array header.
   *
   * @param n the number of elements that follow
   */
  public void array(int n) {
    out.writeByte('*');
    Decimal.writeSigned(out, n);
    crlf();
  }

  /**
   * Writes a push frame's header: RESP3's {@code >}, an array in RESP2 (pub/sub messages and
   * subscription replies).
   *
   * @param n the number of elements that follow
   */
  public void push(int n) {
    if (protocol == 3) {
      out.writeByte('>');
      Decimal.writeSigned(out, n);
      crlf();
    } else {
      array(n);
    }
  }

  /**
   * Writes a map header (RESP2: an array of twice as many elements).
   *
   * @param n the number of key-value pairs that follow
   */
  public void map(int n) {
    if (protocol == 3) {
      out.writeByte('%');
      Decimal.writeSigned(out, n);
      crlf();
    } else {
      array(2 * n);
    }
  }

  /**
   * Writes a set header (RESP2: an array).
   *
   * @param n the number of elements that follow
   */
  public void set(int n) {
    if (protocol == 3) {
      out.writeByte('~');
      Decimal.writeSigned(out, n);
      crlf();
    } else {
      array(n);
    }
  }

  /**
   * Writes a double reply (RESP2: a bulk string).
   *
   * @param text a double's text as Redis formats it
   */
  public void dbl(String text) {
    if (protocol == 3) {
      out.writeByte(',');
      ascii(text);
    } else {
      bulk(text);
    }
  }

  private void ascii(String s) {
    out.writeCharSequence(s, StandardCharsets.ISO_8859_1);
    crlf();
  }
}
