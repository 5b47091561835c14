package dev.larder.wal.internal;

/**
 * The CRC32C of two byte ranges put end to end, from the CRC32C of each and the second's length,
 * without the bytes: lets a file's checksum be computed in pieces on several threads.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A CRC register is a polynomial over GF(2) (here in the reflected order {@link
 * java.util.zip.CRC32C} uses: bit 31 is the coefficient of x^0). Appending {@code n} bytes to a
 * message multiplies its register by x^(8n) modulo the CRC32C polynomial and adds (xor) the
 * register the appended bytes would give from zero; the initial and final inversions of the
 * standard CRC cancel in that sum. So {@code crc(A || B) = crc(A) * x^(8|B|) mod P xor crc(B)}.
 * x^(8n) is the product of the x^(2^k) for the set bits k of 8n, taken from a table of the 64
 * repeated squares (a long's bits: every length a file can have).
 *
 * <p>Stateless; thread-safe.
 */
final class Crc32cCombine {
  /** CRC32C's (Castagnoli's) polynomial, reflected. */
  private static final int POLY = 0x82F63B78;

  /** x^0 in the reflected order. */
  private static final int ONE = 1 << 31;

  /** SQUARES[k] = x^(2^k) mod P. */
  private static final int[] SQUARES = new int[64];

  static {
    int p = ONE >>> 1; // x^1
    for (int k = 0; k < SQUARES.length; k++) {
      SQUARES[k] = p;
      p = multiply(p, p);
    }
  }

  private Crc32cCombine() {}

  /**
   * Returns the CRC32C of A followed by B.
   *
   * @param crcA the CRC32C of A (as {@code (int) CRC32C.getValue()})
   * @param crcB the CRC32C of B
   * @param lengthB B's length in bytes, 0 to 2^60
   */
  static int combine(int crcA, int crcB, long lengthB) {
    return multiply(xPower8n(lengthB), crcA) ^ crcB;
  }

  /** Returns x^(8n) mod P. */
  private static int xPower8n(long n) {
    int p = ONE;
    int k = 3; // 8n = n << 3: bit j of n is bit j + 3 of 8n
    for (long bits = n; bits != 0; bits >>>= 1, k++) {
      if ((bits & 1) != 0) {
        p = multiply(SQUARES[k], p);
      }
    }
    return p;
  }

  /** Returns a * b mod P, both in the reflected order. */
  private static int multiply(int a, int b) {
    int product = 0;
    int shifted = b;
    for (int bit = ONE; bit != 0; bit >>>= 1) {
      if ((a & bit) != 0) {
        product ^= shifted;
      }
      // shifted * x mod P
      shifted = (shifted & 1) != 0 ? (shifted >>> 1) ^ POLY : shifted >>> 1;
    }
    return product;
  }
}
