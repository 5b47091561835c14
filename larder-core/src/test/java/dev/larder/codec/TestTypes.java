package dev.larder.codec;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** Records and enums that the derived codecs are tested with (public: derived by handles). */
public final class TestTypes {

  private TestTypes() {}

  /** An enum. */
  public enum Color {
    RED,
    GREEN,
    BLUE
  }

  /** A record of scalars, primitive and boxed. */
  public record Point(int x, long y, double z, boolean flag, char c, Integer boxed) {}

  /** A record of records, collections, optionals and nullable references. */
  @SuppressWarnings("ArrayRecordComponent") // equals and hashCode compare the content
  public record Shape(
      String name,
      Color color,
      List<Point> points,
      Map<String, Set<Long>> tags,
      Optional<UUID> id,
      Instant created,
      BigDecimal area,
      byte[] blob) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Shape s
          && java.util.Objects.equals(name, s.name)
          && color == s.color
          && java.util.Objects.equals(points, s.points)
          && java.util.Objects.equals(tags, s.tags)
          && java.util.Objects.equals(id, s.id)
          && java.util.Objects.equals(created, s.created)
          && java.util.Objects.equals(area, s.area)
          && java.util.Arrays.equals(blob, s.blob);
    }

    @Override
    public int hashCode() {
      return java.util.Objects.hash(name, color, points, tags, id, created, area)
          + java.util.Arrays.hashCode(blob);
    }
  }

  /** A recursive record. */
  public record Tree(String label, List<Tree> children) {}

  /** A record without components. */
  public record Empty() {}

  /** A record that validates its components, as decoders of corrupted bytes will meet. */
  public record Positive(int value) {
    /** Rejects non-positive values. */
    public Positive {
      if (value <= 0) {
        throw new IllegalArgumentException("not positive: " + value);
      }
    }
  }

  /** A record with a component no codec knows. */
  public record Unsupported(String name, Object payload) {}

  /** A record with more than 64 reference components' worth of bitmap? No: nine, two bytes. */
  public record Wide(
      String a, String b, String c, String d, String e, String f, String g, String h, String i) {}

  /** A type the test CodecProvider serves. */
  public static final class Money {
    private final long cents;

    /**
     * @param cents the amount
     */
    public Money(long cents) {
      this.cents = cents;
    }

    /** Returns the amount. */
    public long cents() {
      return cents;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Money m && m.cents == cents;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(cents);
    }
  }

  /** A serializable legacy class with no derived codec. */
  public static final class Legacy implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final String text;
    private final int[] numbers;

    /**
     * @param text some text
     * @param numbers some numbers
     */
    public Legacy(String text, int[] numbers) {
      this.text = text;
      this.numbers = numbers;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Legacy l
          && l.text.equals(text)
          && java.util.Arrays.equals(l.numbers, numbers);
    }

    @Override
    public int hashCode() {
      return text.hashCode();
    }
  }
}
