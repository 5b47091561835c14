package dev.larder;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import java.util.function.Consumer;

/** Test codecs that run caller code while they encode or decode. */
final class CallingCodecs {

  private CallingCodecs() {}

  /**
   * Returns the strings codec, calling {@code beforeEncoding} first.
   *
   * @param beforeEncoding runs with each value about to be encoded; may throw
   */
  static Codec<String> strings(Consumer<String> beforeEncoding) {
    return strings(beforeEncoding, value -> {});
  }

  /**
   * Returns the strings codec, calling both.
   *
   * @param beforeEncoding runs with each value about to be encoded; may throw
   * @param afterDecoding runs with each value decoded, before it is returned; may throw
   */
  static Codec<String> strings(Consumer<String> beforeEncoding, Consumer<String> afterDecoding) {
    return new Codec<>() {
      @Override
      public void encode(String value, ByteSink out) {
        beforeEncoding.accept(value);
        Codecs.strings().encode(value, out);
      }

      @Override
      public String decode(ByteSource in) {
        String value = Codecs.strings().decode(in);
        afterDecoding.accept(value);
        return value;
      }

      @Override
      public Class<?> type() {
        return String.class;
      }
    };
  }
}
