package dev.larder.codec;

import java.lang.reflect.Type;

/** A user codec found through the ServiceLoader (registered in META-INF/services). */
public final class MoneyCodecProvider implements CodecProvider {

  /** Called by the ServiceLoader. */
  public MoneyCodecProvider() {}

  @Override
  public Codec<?> codecFor(Type type, CodecLookup lookup) {
    return type == TestTypes.Money.class ? new MoneyCodec() : null;
  }

  private static final class MoneyCodec implements Codec<TestTypes.Money> {
    @Override
    public void encode(TestTypes.Money value, ByteSink out) {
      out.writeZigZagLong(value.cents());
    }

    @Override
    public TestTypes.Money decode(ByteSource in) {
      return new TestTypes.Money(in.readZigZagLong());
    }

    @Override
    public Class<?> type() {
      return TestTypes.Money.class;
    }
  }
}
