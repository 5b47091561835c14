package dev.larder.bench.hitratio;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * The file formats of the traces in {@code data/traces} (described in its README), each read into a
 * sequence of {@code long} keys and, where the format carries one, an object size.
 *
 * <p>Readers take an already decompressed stream and do not close it. Malformed input raises {@link
 * IOException} naming the line.
 */
enum TraceFormat {
  /** Text, one decimal key per line; empty lines and {@code *} markers are skipped. */
  LIRS {
    @Override
    void read(InputStream in, Trace.Builder out) throws IOException {
      forEachLine(
          in,
          (line, number) -> {
            if (!line.isEmpty() && !line.equals("*")) {
              out.add(parseLong(line, 10, number), 1);
            }
          });
    }
  },
  /** Text {@code startBlock blockCount ignored requestNumber}: expanded to blockCount keys. */
  ARC {
    @Override
    void read(InputStream in, Trace.Builder out) throws IOException {
      forEachLine(
          in,
          (line, number) -> {
            if (line.isEmpty()) {
              return;
            }
            String[] fields = line.split(" ", -1);
            if (fields.length < 2) {
              throw new IOException("line " + number + ": expected 4 fields: " + line);
            }
            long start = parseLong(fields[0], 10, number);
            long count = parseLong(fields[1], 10, number);
            for (long i = 0; i < count; i++) {
              out.add(start + i, 1);
            }
          });
    }
  },
  /** Binary big-endian 32-bit keys. */
  INT32 {
    @Override
    void read(InputStream in, Trace.Builder out) throws IOException {
      DataInputStream data = new DataInputStream(in);
      while (true) {
        try {
          out.add(Integer.toUnsignedLong(data.readInt()), 1);
        } catch (EOFException end) {
          return;
        }
      }
    }
  },
  /** Binary big-endian 64-bit keys. */
  INT64 {
    @Override
    void read(InputStream in, Trace.Builder out) throws IOException {
      DataInputStream data = new DataInputStream(in);
      while (true) {
        try {
          out.add(data.readLong(), 1);
        } catch (EOFException end) {
          return;
        }
      }
    }
  },
  /** Text {@code time id size}: the key is the id, the weight the size in bytes. */
  ADAPTSIZE {
    @Override
    void read(InputStream in, Trace.Builder out) throws IOException {
      forEachLine(
          in,
          (line, number) -> {
            if (line.isEmpty()) {
              return;
            }
            String[] fields = line.split(" ", -1);
            if (fields.length != 3) {
              throw new IOException("line " + number + ": expected 3 fields: " + line);
            }
            long size = parseLong(fields[2], 10, number);
            if (size < 0 || size > Integer.MAX_VALUE) {
              throw new IOException("line " + number + ": bad size " + size);
            }
            out.add(parseLong(fields[1], 10, number), (int) size);
          });
    }
  },
  /** Text {@code l|s 0xADDRESS n}: the key is the hexadecimal address. */
  ADDRESS {
    @Override
    void read(InputStream in, Trace.Builder out) throws IOException {
      forEachLine(
          in,
          (line, number) -> {
            if (line.isEmpty()) {
              return;
            }
            String[] fields = line.split(" ", -1);
            if (fields.length < 2 || !fields[1].startsWith("0x")) {
              throw new IOException("line " + number + ": expected 'l|s 0xADDRESS n': " + line);
            }
            out.add(parseLong(fields[1].substring(2), 16, number), 1);
          });
    }
  };

  abstract void read(InputStream in, Trace.Builder out) throws IOException;

  /** Returns whether the format records an object size per request (only adaptsize does). */
  boolean carriesSizes() {
    return this == ADAPTSIZE;
  }

  /**
   * Returns that format.
   *
   * @param name a format's name, case-insensitive
   * @throws IllegalArgumentException listing the formats if there is none of that name
   */
  static TraceFormat named(String name) {
    for (TraceFormat format : values()) {
      if (format.name().equalsIgnoreCase(name.strip())) {
        return format;
      }
    }
    throw new IllegalArgumentException(
        "format: no trace format named '"
            + name
            + "'; one of "
            + Arrays.stream(values()).map(f -> f.name().toLowerCase(Locale.ROOT)).toList());
  }

  private interface LineHandler {
    void accept(String line, long number) throws IOException;
  }

  private static void forEachLine(InputStream in, LineHandler handler) throws IOException {
    BufferedReader reader =
        new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII), 1 << 16);
    long number = 0;
    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
      number++;
      handler.accept(line.strip(), number);
    }
  }

  private static long parseLong(String text, int radix, long line) throws IOException {
    try {
      return Long.parseUnsignedLong(text, radix);
    } catch (NumberFormatException e) {
      throw new IOException("line " + line + ": not a number: " + text, e);
    }
  }
}
