package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Date;

/**
 * Codecs of dates and times. Wire forms (docs/spec/codecs.md, "Time"): Date a zig-zag varint of
 * epoch milliseconds; Instant a zig-zag varint of epoch seconds then a varint of nanoseconds;
 * LocalDate a zig-zag varint of the epoch day; LocalDateTime the epoch day then a varint of the
 * nanosecond of the day. Decoding checks every range and throws {@link CodecException}.
 */
public final class TimeCodecs {

  public static final Codec<Date> DATE = new DateCodec();
  public static final Codec<Instant> INSTANT = new InstantCodec();
  public static final Codec<LocalDate> LOCAL_DATE = new LocalDateCodec();
  public static final Codec<LocalDateTime> LOCAL_DATE_TIME = new LocalDateTimeCodec();

  private static final long NANOS_PER_DAY = 86_400_000_000_000L;

  private TimeCodecs() {}

  @SuppressWarnings("JavaUtilDate") // Date is a type users store
  private static final class DateCodec implements Codec<Date> {
    @Override
    public void encode(Date value, ByteSink out) {
      out.writeZigZagLong(value.getTime());
    }

    @Override
    public Date decode(ByteSource in) {
      return new Date(in.readZigZagLong());
    }

    @Override
    public Class<?> type() {
      return Date.class;
    }
  }

  private static final class InstantCodec implements Codec<Instant> {
    @Override
    public void encode(Instant value, ByteSink out) {
      out.writeZigZagLong(value.getEpochSecond());
      out.writeVarInt(value.getNano());
    }

    @Override
    public Instant decode(ByteSource in) {
      long seconds = in.readZigZagLong();
      int nanos = in.readVarInt();
      if (nanos < 0 || nanos > 999_999_999) {
        throw new CodecException("nanosecond out of range: " + Integer.toUnsignedString(nanos));
      }
      try {
        return Instant.ofEpochSecond(seconds, nanos);
      } catch (DateTimeException e) {
        throw new CodecException("instant out of range", e);
      }
    }

    @Override
    public Class<?> type() {
      return Instant.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }

  private static final class LocalDateCodec implements Codec<LocalDate> {
    @Override
    public void encode(LocalDate value, ByteSink out) {
      out.writeZigZagLong(value.toEpochDay());
    }

    @Override
    public LocalDate decode(ByteSource in) {
      return day(in.readZigZagLong());
    }

    @Override
    public Class<?> type() {
      return LocalDate.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }

  private static final class LocalDateTimeCodec implements Codec<LocalDateTime> {
    @Override
    public void encode(LocalDateTime value, ByteSink out) {
      out.writeZigZagLong(value.toLocalDate().toEpochDay());
      out.writeVarLong(value.toLocalTime().toNanoOfDay());
    }

    @Override
    public LocalDateTime decode(ByteSource in) {
      LocalDate date = day(in.readZigZagLong());
      long nanos = in.readVarLong();
      if (nanos < 0 || nanos >= NANOS_PER_DAY) {
        throw new CodecException("nanosecond of day out of range: " + Long.toUnsignedString(nanos));
      }
      return LocalDateTime.of(date, LocalTime.ofNanoOfDay(nanos));
    }

    @Override
    public Class<?> type() {
      return LocalDateTime.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }

  private static LocalDate day(long epochDay) {
    try {
      return LocalDate.ofEpochDay(epochDay);
    } catch (DateTimeException e) {
      throw new CodecException("epoch day out of range: " + epochDay, e);
    }
  }
}
