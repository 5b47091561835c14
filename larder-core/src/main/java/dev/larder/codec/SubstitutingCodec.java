package dev.larder.codec;

/**
 * Writes a value as its dictionary id where it has one, inline otherwise. Wire form
 * (docs/spec/dictionary.md, "Substituted value"): varint {@code v}; {@code v = 0} means the value
 * follows, encoded by the inline codec; {@code v > 0} means id {@code v - 1} of the space.
 *
 * @param <T> the value type
 */
final class SubstitutingCodec<T> implements Codec<T> {

  private final ValueDictionary dictionary;
  private final DictionarySpace space;
  private final Codec<T> inline;
  private final ValueDictionary.Mode mode;

  SubstitutingCodec(
      ValueDictionary dictionary,
      DictionarySpace space,
      Codec<T> inline,
      ValueDictionary.Mode mode) {
    this.dictionary = dictionary;
    this.space = space;
    this.inline = inline;
    this.mode = mode;
  }

  @Override
  public void encode(T value, ByteSink out) {
    int id = space.idOf(value);
    if (id < 0) {
      id = dictionary.admit(space, value, mode);
    }
    if (id >= 0) {
      out.writeVarLong(id + 1L);
    } else {
      out.writeByte(0);
      inline.encode(value, out);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public T decode(ByteSource in) {
    int v = in.readVarInt();
    if (v == 0) {
      return inline.decode(in);
    }
    return (T) space.valueOf(v - 1);
  }

  @Override
  public Class<?> type() {
    return inline.type();
  }

  /** The same value is written inline before it is interned and as an id afterwards. */
  @Override
  public boolean deterministic() {
    return false;
  }

  /** Interned values are shared by every entry that names them: as immutable as the type. */
  @Override
  public boolean immutable() {
    return inline.immutable();
  }
}
