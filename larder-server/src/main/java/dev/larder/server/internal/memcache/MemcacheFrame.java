package dev.larder.server.internal.memcache;

import java.util.List;

/** What {@link MemcacheDecoder} hands on: a command line with its data block, or an error. */
public sealed interface MemcacheFrame {
  /**
   * A command.
   *
   * @param tokens the command line's words, the command first
   * @param data the data block of a storage command (without its CRLF), else null
   */
  record Command(List<byte[]> tokens, byte[] data) implements MemcacheFrame {}

  /**
   * Input that cannot be served.
   *
   * @param line the reply line, without CRLF
   * @param close whether the connection must be closed after it
   */
  record Error(String line, boolean close) implements MemcacheFrame {}
}
