package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import java.util.Locale;

/**
 * Codecs of text-like values: String ({@link StringForms}), byte[] and Locale. Wire forms in
 * docs/spec/codecs.md.
 */
public final class TextCodecs {

  public static final Codec<String> STRING = new StringCodec();
  public static final Codec<byte[]> BYTES = new BytesCodec();
  public static final Codec<Locale> LOCALE = new LocaleCodec();

  private TextCodecs() {}

  /** Wire form: {@link StringForms}; when last, its headerless last form. */
  private static final class StringCodec implements Codec<String> {
    @Override
    public void encode(String value, ByteSink out) {
      StringForms.write(value, out);
    }

    @Override
    public String decode(ByteSource in) {
      return StringForms.read(in);
    }

    @Override
    public void encodeLast(String value, ByteSink out) {
      StringForms.writeLast(value, out);
    }

    @Override
    public String decodeLast(ByteSource in) {
      return StringForms.readLast(in);
    }

    @Override
    public Class<?> type() {
      return String.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }

  /** Wire form: varint length, bytes; when last, the bytes alone. */
  private static final class BytesCodec implements Codec<byte[]> {
    @Override
    public void encode(byte[] value, ByteSink out) {
      out.writeVarInt(value.length);
      out.writeBytes(value);
    }

    @Override
    public byte[] decode(ByteSource in) {
      return in.readBytes(in.readLength(1));
    }

    @Override
    public void encodeLast(byte[] value, ByteSink out) {
      out.writeBytes(value);
    }

    @Override
    public byte[] decodeLast(ByteSource in) {
      return in.readBytes(in.remaining());
    }

    @Override
    public Class<?> type() {
      return byte[].class;
    }
  }

  /**
   * Wire form: one form byte, then strings. Form 0: the BCP 47 language tag, for every locale that
   * the tag reproduces exactly. Form 1: language, country and variant, for the legacy locales that
   * a tag cannot carry (e.g. {@code ja_JP_JP}, {@code no_NO_NY}).
   */
  private static final class LocaleCodec implements Codec<Locale> {
    @Override
    public void encode(Locale value, ByteSink out) {
      String tag = value.toLanguageTag();
      if (Locale.forLanguageTag(tag).equals(value)) {
        out.writeByte(0);
        StringForms.write(tag, out);
        return;
      }
      if (!legacy(value.getLanguage(), value.getCountry(), value.getVariant()).equals(value)) {
        throw new CodecException("locale has no exact encoding: " + value);
      }
      out.writeByte(1);
      StringForms.write(value.getLanguage(), out);
      StringForms.write(value.getCountry(), out);
      StringForms.write(value.getVariant(), out);
    }

    @Override
    public Locale decode(ByteSource in) {
      int form = in.readUnsignedByte();
      return switch (form) {
        case 0 -> fromTag(StringForms.read(in));
        case 1 -> legacy(StringForms.read(in), StringForms.read(in), StringForms.read(in));
        default -> throw new CodecException("unknown locale form " + form);
      };
    }

    private static Locale fromTag(String tag) {
      // The same (lenient) parser the encoder checked the round trip with.
      return Locale.forLanguageTag(tag);
    }

    @SuppressWarnings("deprecation")
    private static Locale legacy(String language, String country, String variant) {
      // Locale.of maps ja_JP_JP and th_TH_TH to their extension forms; the deprecated
      // constructor is the one way to rebuild the exact legacy instance.
      return new Locale(language, country, variant);
    }

    @Override
    public Class<?> type() {
      return Locale.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }
}
