package dev.larder;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import java.util.function.Consumer;

/** Test codecs that run caller code while they encode. */
final class CallingCodecs {

  private CallingCodecs() {}

  /**
   * @param beforeEncoding runs with each value about to be encoded; may throw
   * @return the strings codec, calling {@code beforeEncoding} first
   */
  static Codec<String> strings(Consumer<String> beforeEncoding) {
    return new Codec<>() {
      @Override
      public void encode(String value, ByteSink out) {
        beforeEncoding.accept(value);
        Codecs.strings().encode(value, out);
      }

      @Override
      public String decode(ByteSource in) {
        return Codecs.strings().decode(in);
      }

      @Override
      public Class<?> type() {
        return String.class;
      }
    };
  }
}
