package dev.larder.bench.server;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fills a RESP server with keys of one collection type, the same way for every server: {@code keys}
 * keys ({@code prefix0}, {@code prefix1} ...) of {@code elements} elements each, written with
 * RPUSH, SADD, ZADD or HSET of at most {@value #ELEMENTS_PER_COMMAND} elements per command, over
 * one pipelined connection, every reply read (an error reply fails the load).
 *
 * <p>Element {@code i} of a key is {@code element:i} in a list, {@code i} in a set of integers,
 * {@code member:i} in a set of strings, {@code member:i} with score {@code i} in a sorted set, and
 * field {@code field:i} with value {@code value:i} in a hash.
 */
final class CollectionLoader {
  /** Elements per command: a large key is written in commands of this many elements. */
  static final int ELEMENTS_PER_COMMAND = 1_000;

  /** Commands sent before their replies are read. */
  private static final int PIPELINE = 256;

  /** The collection types, as the scenario names them. */
  static final List<String> TYPES = List.of("list", "set-int", "set", "zset", "hash");

  private CollectionLoader() {}

  /**
   * Writes the keys.
   *
   * @param port the server's RESP port on 127.0.0.1
   * @param type one of {@link #TYPES}
   * @param prefix the keys' prefix
   * @param keys how many keys
   * @param elements elements per key
   * @throws IOException if the connection fails or the server answers an error
   * @throws IllegalArgumentException for an unknown type
   */
  static void fill(int port, String type, String prefix, long keys, int elements)
      throws IOException {
    fill(port, type, prefix, keys, elements, ELEMENTS_PER_COMMAND);
  }

  /**
   * Writes the keys with at most {@code perCommand} elements per command.
   *
   * @see #fill(int, String, String, long, int)
   */
  static void fill(int port, String type, String prefix, long keys, int elements, int perCommand)
      throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(120_000);
      OutputStream out = new BufferedOutputStream(s.getOutputStream(), 1 << 16);
      InputStream in = new BufferedInputStream(s.getInputStream(), 1 << 16);
      int pending = 0;
      for (long k = 0; k < keys; k++) {
        String key = prefix + k;
        for (int from = 0; from < elements; from += perCommand) {
          write(out, command(type, key, from, Math.min(elements, from + perCommand)));
          if (++pending == PIPELINE) {
            out.flush();
            readIntegers(in, pending);
            pending = 0;
          }
        }
      }
      out.flush();
      readIntegers(in, pending);
    }
  }

  /** Returns the words of the command that adds elements {@code from} to {@code to} - 1. */
  static List<String> command(String type, String key, int from, int to) {
    List<String> words = new ArrayList<>();
    words.add(
        switch (type) {
          case "list" -> "RPUSH";
          case "set-int", "set" -> "SADD";
          case "zset" -> "ZADD";
          case "hash" -> "HSET";
          default -> throw new IllegalArgumentException("unknown collection type " + type);
        });
    words.add(key);
    for (int i = from; i < to; i++) {
      switch (type) {
        case "list" -> words.add("element:" + i);
        case "set-int" -> words.add(Integer.toString(i));
        case "set" -> words.add("member:" + i);
        case "zset" -> {
          words.add(Integer.toString(i));
          words.add("member:" + i);
        }
        default -> {
          words.add("field:" + i);
          words.add("value:" + i);
        }
      }
    }
    return words;
  }

  private static void write(OutputStream out, List<String> words) throws IOException {
    StringBuilder sb = new StringBuilder("*").append(words.size()).append("\r\n");
    for (String w : words) {
      sb.append('$').append(w.length()).append("\r\n").append(w).append("\r\n");
    }
    out.write(sb.toString().getBytes(StandardCharsets.US_ASCII));
  }

  private static void readIntegers(InputStream in, int replies) throws IOException {
    for (int r = 0; r < replies; r++) {
      StringBuilder line = new StringBuilder();
      for (int b = in.read(); b != '\n'; b = in.read()) {
        if (b < 0) {
          throw new IOException("connection closed while loading");
        }
        line.append((char) b);
      }
      if (line.isEmpty() || line.charAt(0) != ':') {
        throw new IOException("unexpected reply while loading: " + line.toString().strip());
      }
    }
  }
}
