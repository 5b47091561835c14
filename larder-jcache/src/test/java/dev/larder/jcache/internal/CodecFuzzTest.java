package dev.larder.jcache.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import dev.larder.codec.Codecs;
import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Round trips and random-input decoding of the JCache layer's codecs. */
class CodecFuzzTest {

  private static final long SEED = 0x1A2DE5L;

  private static <T> byte[] encodeLast(Codec<T> codec, T value) {
    ByteSink sink = new ByteSink();
    codec.encodeLast(value, sink);
    return sink.toByteArray();
  }

  @Test
  void expirableRoundTripsEternalAndTimed() {
    ExpirableCodec<String> codec = new ExpirableCodec<>(Codecs.strings());
    for (long expireAt : new long[] {Expirable.NEVER, 0, 1, 127, 1L << 40, Expirable.NEVER - 1}) {
      Expirable<String> entry = new Expirable<>("value", expireAt);
      assertEquals(entry, codec.decodeLast(new ByteSource(encodeLast(codec, entry))));
      ByteSink sink = new ByteSink();
      codec.encode(entry, sink);
      codec.encode(entry, sink);
      ByteSource in = new ByteSource(sink.toByteArray());
      assertEquals(entry, codec.decode(in));
      assertEquals(entry, codec.decode(in));
    }
  }

  @Test
  void eternalEntriesPayOneByteOfExpiry() {
    ExpirableCodec<String> codec = new ExpirableCodec<>(Codecs.strings());
    int eternal = encodeLast(codec, new Expirable<>("v", Expirable.NEVER)).length;
    assertEquals(encodeLast(Codecs.strings(), "v").length + 1, eternal);
  }

  /** Golden bytes of wire form version 1 (docs/spec/jcache-entry-value.md). */
  @Test
  void wireFormVersionOneIsStable() {
    ExpirableCodec<String> codec = new ExpirableCodec<>(Codecs.strings());
    byte[] text = encodeLast(Codecs.strings(), "v");
    assertArrayEquals(
        concat(new byte[] {0x00}, text), encodeLast(codec, new Expirable<>("v", Expirable.NEVER)));
    assertArrayEquals(concat(new byte[] {0x06}, text), encodeLast(codec, new Expirable<>("v", 5)));
    assertArrayEquals(
        concat(new byte[] {(byte) 0xE9, 0x07}, text),
        encodeLast(codec, new Expirable<>("v", 1000)));
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void serializationStoresExactlyTheSerializedBytes() throws Exception {
    SerializationCodec<Object> codec = new SerializationCodec<>(Object.class, loader());
    ArrayList<Object> value = new ArrayList<>(List.of("a", 1L, Map.of("k", 2)));
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(expected)) {
      out.writeObject(value);
    }
    byte[] bytes = encodeLast(codec, value);
    assertArrayEquals(expected.toByteArray(), bytes);
    assertEquals(value, codec.decodeLast(new ByteSource(bytes)));
  }

  @Test
  void nonSerializableValuesFailWithCodecException() {
    SerializationCodec<Object> codec = new SerializationCodec<>(Object.class, loader());
    assertThrows(CodecException.class, () -> encodeLast(codec, new Object()));
  }

  @Test
  void randomBytesDecodeOrFailWithCodecException() {
    ExpirableCodec<Object> codec =
        new ExpirableCodec<>(new SerializationCodec<>(Object.class, loader()));
    byte[] valid = encodeLast(codec, new Expirable<>(new ArrayList<>(List.of("x", 3)), 42));
    Random random = new Random(SEED);
    for (int round = 0; round < 3000; round++) {
      byte[] input = round % 2 == 0 ? randomBytes(random) : mutate(valid, random);
      try {
        codec.decodeLast(new ByteSource(input));
      } catch (CodecException expected) {
        // the only failure allowed
      }
    }
  }

  private static byte[] randomBytes(Random random) {
    byte[] bytes = new byte[random.nextInt(64)];
    random.nextBytes(bytes);
    return bytes;
  }

  private static byte[] mutate(byte[] valid, Random random) {
    byte[] bytes = valid.clone();
    for (int i = 0, flips = 1 + random.nextInt(4); i < flips; i++) {
      bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
    }
    return random.nextBoolean()
        ? bytes
        : java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length));
  }

  private ClassLoader loader() {
    return getClass().getClassLoader();
  }
}
