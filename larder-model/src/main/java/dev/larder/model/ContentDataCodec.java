package dev.larder.model;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import dev.larder.codec.Codecs;
import java.util.Locale;

/**
 * Content data. A flags byte (bit 0: the URL is absent; bit 1: the URL is in the compact form of
 * {@link ContentUrls}; bits 2, 3, 4: mimetype, encoding, locale absent), then the URL (compact:
 * varints of year, month, day, hour, minute and the UUID's 16 bytes; else a string), the mimetype,
 * the size as a zig-zag varint, the encoding and the locale, each present one by its codec.
 */
final class ContentDataCodec implements Codec<ContentData> {

  private static final int NO_URL = 1;
  private static final int COMPACT_URL = 2;
  private static final int NO_MIMETYPE = 4;
  private static final int NO_ENCODING = 8;
  private static final int NO_LOCALE = 16;

  private final ModelForms forms;

  ContentDataCodec(ModelForms forms) {
    this.forms = forms;
  }

  @Override
  public void encode(ContentData value, ByteSink out) {
    ContentUrls.Parts url =
        value.contentUrl() == null ? null : ContentUrls.parse(value.contentUrl());
    int flags =
        (value.contentUrl() == null ? NO_URL : 0)
            | (url != null ? COMPACT_URL : 0)
            | (value.mimetype() == null ? NO_MIMETYPE : 0)
            | (value.encoding() == null ? NO_ENCODING : 0)
            | (value.locale() == null ? NO_LOCALE : 0);
    out.writeByte(flags);
    if (url != null) {
      writeCompactUrl(url, out);
    } else if (value.contentUrl() != null) {
      Codecs.strings().encode(value.contentUrl(), out);
    }
    if (value.mimetype() != null) {
      forms.mimetype().encode(value.mimetype(), out);
    }
    out.writeZigZagLong(value.size());
    if (value.encoding() != null) {
      forms.encoding().encode(value.encoding(), out);
    }
    if (value.locale() != null) {
      forms.locale().encode(value.locale(), out);
    }
  }

  private static void writeCompactUrl(ContentUrls.Parts url, ByteSink out) {
    out.writeVarInt(url.year());
    out.writeVarInt(url.month());
    out.writeVarInt(url.day());
    out.writeVarInt(url.hour());
    out.writeVarInt(url.minute());
    out.writeLong(url.msb());
    out.writeLong(url.lsb());
  }

  @Override
  public ContentData decode(ByteSource in) {
    int flags = in.readUnsignedByte();
    if (flags > 31 || (flags & (NO_URL | COMPACT_URL)) == (NO_URL | COMPACT_URL)) {
      throw new CodecException("invalid content data flags " + flags);
    }
    String url =
        (flags & NO_URL) != 0
            ? null
            : (flags & COMPACT_URL) != 0 ? readCompactUrl(in) : Codecs.strings().decode(in);
    String mimetype = (flags & NO_MIMETYPE) != 0 ? null : forms.mimetype().decode(in);
    long size = in.readZigZagLong();
    String encoding = (flags & NO_ENCODING) != 0 ? null : forms.encoding().decode(in);
    Locale locale = (flags & NO_LOCALE) != 0 ? null : forms.locale().decode(in);
    return new ContentData(url, mimetype, size, encoding, locale);
  }

  private static String readCompactUrl(ByteSource in) {
    return new ContentUrls.Parts(
            in.readVarInt(),
            in.readVarInt(),
            in.readVarInt(),
            in.readVarInt(),
            in.readVarInt(),
            in.readLong(),
            in.readLong())
        .format();
  }

  @Override
  public Class<?> type() {
    return ContentData.class;
  }
}
