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
 * Encode plus decode of one content node of the content-node memory test (target: median at most 1
 * µs), with and without value substitution, and each half alone. {@code pool = 1} encodes the same
 * node object every time (its strings and names stay in the CPU caches); {@code pool = 1024} cycles
 * through 1,024 generated nodes whose fresh strings and names do not all fit the caches, which is
 * closer to a cache loading nodes from a database (hashing a node's names then misses the caches).
 * The substitution dictionary is filled by encoding the pool in setup, as a running cache's would
 * be.
 *
 * <p>Run: {@code java -cp larder-bench/target/classes:$(cat larder-bench/target/classpath.txt)
 * org.openjdk.jmh.Main NodeCodecBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class NodeCodecBenchmark {

  /** Whether qualified names, namespaces and the other repeating values are substituted. */
  @Param({"substituted", "plain"})
  public String flavour;

  /** How many distinct node objects the benchmark cycles through (a power of two). */
  @Param({"1", "1024"})
  public int pool;

  private Codec<Node> codec;
  private Node[] nodes;
  private byte[][] encoded;
  private final ByteSink sink = new ByteSink(2048);
  private int next;

  /** Builds the codec, the node pool and their encodings. */
  @Setup(Level.Trial)
  public void setUp() {
    codec =
        flavour.equals("plain") ? NodeCodecs.node() : NodeCodecs.node(NodeCodecs.newDictionary());
    NodeGenerator generator = new NodeGenerator(42);
    nodes = new Node[pool];
    encoded = new byte[pool][];
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < pool; i++) {
        nodes[i] = generator.node(i);
        sink.reset();
        codec.encodeLast(nodes[i], sink);
        encoded[i] = sink.toByteArray();
      }
    }
  }

  /** Returns the node decoded from its fresh encoding. */
  @Benchmark
  public Node encodeAndDecode() {
    Node node = nodes[next++ & (pool - 1)];
    sink.reset();
    codec.encodeLast(node, sink);
    return codec.decodeLast(new ByteSource(sink.array(), 0, sink.size()));
  }

  /** Returns the encoded size. */
  @Benchmark
  public int encode() {
    sink.reset();
    codec.encodeLast(nodes[next++ & (pool - 1)], sink);
    return sink.size();
  }

  /** Returns the decoded node. */
  @Benchmark
  public Node decode() {
    return codec.decodeLast(new ByteSource(encoded[next++ & (pool - 1)]));
  }
}
