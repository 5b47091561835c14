package dev.larder.bench.jmh;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.model.Node;
import dev.larder.model.NodeCodecs;
import dev.larder.model.NodeGenerator;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encode plus decode of one content node of seed 000 (issue 3: median at most 1 µs), with and
 * without value substitution, and each half alone. Nodes cycle through a pool of 1,024
 * generated nodes so that branch predictors do not learn one node; the substitution dictionary
 * is filled by encoding the pool once in setup, as a running cache's would be.
 *
 * <p>Run: {@code java -cp larder-bench/target/classes:$(cat larder-bench/target/classpath.txt)
 * org.openjdk.jmh.Main NodeCodecBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class NodeCodecBenchmark {

  private static final int POOL = 1024;

  /** Whether qualified names, namespaces and the other repeating values are substituted. */
  @Param({"substituted", "plain"})
  public String flavour;

  private Codec<Node> codec;
  private Node[] nodes;
  private byte[][] encoded;
  private final ByteSink sink = new ByteSink(2048);
  private int next;

  /** Builds the codec, the node pool and their encodings. */
  @Setup(Level.Trial)
  public void setUp() {
    codec = flavour.equals("plain") ? NodeCodecs.node()
        : NodeCodecs.node(NodeCodecs.newDictionary());
    NodeGenerator generator = new NodeGenerator(42);
    nodes = new Node[POOL];
    encoded = new byte[POOL][];
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < POOL; i++) {
        nodes[i] = generator.node(i);
        sink.reset();
        codec.encodeLast(nodes[i], sink);
        encoded[i] = sink.toByteArray();
      }
    }
  }

  /** @return the node decoded from its fresh encoding */
  @Benchmark
  public Node encodeAndDecode() {
    Node node = nodes[next++ & (POOL - 1)];
    sink.reset();
    codec.encodeLast(node, sink);
    return codec.decodeLast(new ByteSource(sink.array(), 0, sink.size()));
  }

  /** @return the encoded size */
  @Benchmark
  public int encode() {
    sink.reset();
    codec.encodeLast(nodes[next++ & (POOL - 1)], sink);
    return sink.size();
  }

  /** @return the decoded node */
  @Benchmark
  public Node decode() {
    return codec.decodeLast(new ByteSource(encoded[next++ & (POOL - 1)]));
  }
}
