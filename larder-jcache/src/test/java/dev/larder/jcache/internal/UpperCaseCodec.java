package dev.larder.jcache.internal;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import java.util.Locale;

/** A user codec for the tests: stores strings upper-cased, so its use is visible. */
public final class UpperCaseCodec implements Codec<String> {

  @Override
  public void encode(String value, ByteSink out) {
    Codecs.strings().encode(value.toUpperCase(Locale.ROOT), out);
  }

  @Override
  public String decode(ByteSource in) {
    return Codecs.strings().decode(in);
  }

  @Override
  public Class<?> type() {
    return String.class;
  }
}
