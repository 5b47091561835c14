package dev.larder.server.internal.resp;

import java.util.List;

/** What {@link RespDecoder} hands on: a command or a protocol error. */
public sealed interface RespFrame {
  /**
   * A command: its name and arguments, each a fresh array the handler owns.
   *
   * @param args at least one element
   */
  record Command(List<byte[]> args) implements RespFrame {}

  /**
   * Input that is not RESP; the connection is answered and closed, as Redis does.
   *
   * @param message the error line, without the leading dash
   */
  record ProtocolError(String message) implements RespFrame {}
}
