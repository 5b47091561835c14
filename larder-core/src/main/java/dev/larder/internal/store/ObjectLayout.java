package dev.larder.internal.store;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * How large this JVM makes objects: the header, a reference and the alignment, for estimating what
 * decoded values retain on the heap (the hot tier's accounting).
 *
 * <p>Implementation notes. HotSpot's layout depends on three flags: compressed class pointers (a
 * 12-byte header, else 16), compact object headers (8 bytes, JDK 24+, off by default) and
 * compressed references (4-byte references below a 32 GiB heap, else 8), with objects aligned to 8
 * bytes unless {@code -XX:ObjectAlignmentInBytes} says otherwise. The flags are read from the JVM's
 * own arguments, and compressed references are assumed where the maximum heap allows them, as
 * HotSpot decides; the figures are what {@code HotTierSizeTest} checks against the heap's real
 * growth.
 */
final class ObjectLayout {

  /** Bytes of an object's header. */
  static final int HEADER;

  /** Bytes of an array's header (object header and length, aligned for the elements). */
  static final int ARRAY_HEADER;

  /** Bytes of a reference field or array element. */
  static final int REFERENCE;

  /** Object alignment. */
  static final int ALIGNMENT;

  static {
    List<String> arguments = jvmArguments();
    boolean compactHeaders = arguments.contains("-XX:+UseCompactObjectHeaders");
    boolean compressedClasses = !arguments.contains("-XX:-UseCompressedClassPointers");
    int alignment = 8;
    for (String argument : arguments) {
      if (argument.startsWith("-XX:ObjectAlignmentInBytes=")) {
        alignment = Integer.parseInt(argument.substring(argument.indexOf('=') + 1));
      }
    }
    boolean compressedReferences =
        !arguments.contains("-XX:-UseCompressedOops")
            && Runtime.getRuntime().maxMemory() < (32L << 30) * alignment / 8;
    HEADER = compactHeaders ? 8 : compressedClasses ? 12 : 16;
    REFERENCE = compressedReferences ? 4 : 8;
    ALIGNMENT = alignment;
    ARRAY_HEADER = HEADER + 4;
  }

  private ObjectLayout() {}

  private static List<String> jvmArguments() {
    try {
      return ManagementFactory.getRuntimeMXBean().getInputArguments();
    } catch (RuntimeException | Error e) {
      return List.of();
    }
  }

  /** Returns {@code bytes} rounded up to the object alignment. */
  static long align(long bytes) {
    return (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
  }

  /**
   * Returns the size of an object with those fields.
   *
   * @param fieldBytes bytes of the instance fields, superclasses' included
   */
  static long object(long fieldBytes) {
    return align(HEADER + fieldBytes);
  }

  /**
   * Returns the size of an array.
   *
   * @param length elements
   * @param elementBytes bytes an element
   */
  static long array(long length, int elementBytes) {
    return align(ARRAY_HEADER + length * elementBytes);
  }

  /**
   * Returns the size of an array of references.
   *
   * @param length elements
   */
  static long referenceArray(long length) {
    return array(length, REFERENCE);
  }
}
