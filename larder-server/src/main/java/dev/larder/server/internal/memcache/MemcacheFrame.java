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
  @SuppressWarnings("ArrayRecordComponent") // a wire frame, never compared; arrays not copied
  record Command(List<byte[]> tokens, byte[] data) implements MemcacheFrame {}

  /**
   * Part of a retrieval line (get, gets, gat, gats) longer than the line cap, handed on as its keys
   * arrive.
   *
   * @param head the command, and for gat and gats the expiry: the words before the keys
   * @param keys the complete keys that arrived, each checked to be 1 to 250 bytes
   * @param last whether the line ended with these keys
   */
  record Keys(List<byte[]> head, List<byte[]> keys, boolean last) implements MemcacheFrame {}

  /**
   * A storage command whose data block is larger than the item limit: its data is skipped (or,
   * beyond the request limit, the connection closed) and it is answered SERVER_ERROR.
   *
   * @param tokens the command line's words
   * @param close whether the connection closes after the reply (the block is not skipped)
   */
  record TooLarge(List<byte[]> tokens, boolean close) implements MemcacheFrame {}

  /**
   * Input that cannot be served.
   *
   * @param line the reply line, without CRLF
   * @param close whether the connection must be closed after it
   */
  @SuppressWarnings(
      "AvoidCommonTypeNames") // the protocol's ERROR reply, named as MemcacheFrame.Error
  record Error(String line, boolean close) implements MemcacheFrame {}
}
