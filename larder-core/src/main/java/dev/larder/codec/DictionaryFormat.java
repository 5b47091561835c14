package dev.larder.codec;

import dev.larder.internal.codec.StringForms;
import java.util.ArrayList;
import java.util.List;

/**
 * The dictionary snapshot format, version 1 (docs/spec/dictionary.md):
 *
 * <pre>
 * +--------+---------+-------------+-----------------------------------------------+
 * | "LDIC" | version | space count | per space: name (string form), entry count,    |
 * | 4 B    | varint  | varint      |   per entry: varint length, encoded value bytes |
 * +--------+---------+-------------+-----------------------------------------------+
 * </pre>
 *
 * Spaces in creation order, entries in id order; ids are implied by position.
 */
final class DictionaryFormat {

  static final int VERSION = 1;
  private static final byte[] MAGIC = {'L', 'D', 'I', 'C'};

  private DictionaryFormat() {}

  static byte[] write(List<DictionarySpace> spaces) {
    ByteSink out = new ByteSink(256);
    out.writeBytes(MAGIC);
    out.writeVarInt(VERSION);
    out.writeVarInt(spaces.size());
    for (DictionarySpace space : spaces) {
      StringForms.write(space.name(), out);
      int n = space.size();
      out.writeVarInt(n);
      for (int id = 0; id < n; id++) {
        byte[] bytes = space.encodedOf(id);
        out.writeVarInt(bytes.length);
        out.writeBytes(bytes);
      }
    }
    return out.toByteArray();
  }

  static List<ValueDictionary.Addition> read(byte[] snapshot) {
    ByteSource in = new ByteSource(snapshot);
    for (byte b : MAGIC) {
      if (in.readByte() != b) {
        throw new CodecException("not a dictionary snapshot (bad magic)");
      }
    }
    int version = in.readVarInt();
    if (version != VERSION) {
      throw new CodecException("unsupported dictionary snapshot version " + version);
    }
    List<ValueDictionary.Addition> additions = new ArrayList<>();
    int spaces = in.readLength(2);
    for (int s = 0; s < spaces; s++) {
      String name = StringForms.read(in);
      int entries = in.readLength(1);
      for (int id = 0; id < entries; id++) {
        additions.add(new ValueDictionary.Addition(name, id, in.readBytes(in.readLength(1))));
      }
    }
    if (!in.exhausted()) {
      throw new CodecException(in.remaining() + " trailing bytes after the snapshot");
    }
    return additions;
  }
}
