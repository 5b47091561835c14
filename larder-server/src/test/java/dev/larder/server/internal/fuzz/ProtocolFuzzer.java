package dev.larder.server.internal.fuzz;

import dev.larder.server.ServerConfig;
import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.memcache.MemcacheAuth;
import dev.larder.server.internal.memcache.MemcacheDispatcher;
import dev.larder.server.internal.memcache.MemcacheStats;
import dev.larder.server.internal.net.RequestDecoder;
import dev.larder.server.internal.resp.AclUsers;
import dev.larder.server.internal.resp.RespCommandTable;
import dev.larder.server.internal.resp.RespSession;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Feeds random and mutated requests to a protocol's real decoder and handler (over Netty's
 * EmbeddedChannel, against a real keyspace) and checks what must hold for any input: no exception
 * escapes the pipeline, the decoder never buffers more than the request limit allows, a reply for
 * one input stays bounded, and every input is processed (a hang would stop the run).
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Inputs, from one seeded generator: a quarter random bytes; the rest valid requests from a
 * corpus with one to four mutations (byte flips, control bytes, insertions, deletions,
 * duplications, numbers replaced by boundary values), sometimes two requests glued together
 * (pipelining). Each input is delivered in one to four chunks, cut at random. A connection is
 * reused until the server closes it, so state (MULTI, SELECT, HELLO) carries over as it would. One
 * new connection in four goes to the same keyspace behind passwords (requirepass, a memcached auth
 * file), so the paths before and after authentication are both fuzzed; the corpus holds the right
 * credentials, which mutations usually spoil.
 *
 * <p>Test support, in larder-server's test sources and test-jar (not its main jar); larder-bench's
 * fuzz scenario runs it ({@code ./larder bench fuzz}).
 *
 * <p>Not thread-safe; one run per instance.
 */
public final class ProtocolFuzzer implements AutoCloseable {
  /** The protocols. */
  public enum Protocol {
    /** RESP2/RESP3. */
    RESP,
    /** memcached text and meta. */
    MEMCACHE
  }

  /**
   * What a run saw.
   *
   * @param inputs inputs processed
   * @param bytes bytes delivered
   * @param closes connections the server closed
   * @param maxBuffered the most bytes a decoder held between inputs
   */
  public record Report(long inputs, long bytes, long closes, long maxBuffered) {}

  /** Twice the decoders' large-argument threshold, so that path is fuzzed too. */
  static final int MAX_REQUEST = 128 * 1024;

  static final int MAX_REPLY = 4 * 1024 * 1024;

  private static final List<String> RESP_CORPUS =
      List.of(
          "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n",
          "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
          "*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\n10\r\n$2\r\nEX\r\n$3\r\n100\r\n",
          "*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n",
          "*3\r\n$11\r\nINCRBYFLOAT\r\n$1\r\nf\r\n$3\r\n1.5\r\n",
          "*4\r\n$4\r\nHSET\r\n$1\r\nh\r\n$1\r\na\r\n$1\r\n1\r\n",
          "*2\r\n$7\r\nHGETALL\r\n$1\r\nh\r\n",
          "*4\r\n$8\r\nGETRANGE\r\n$1\r\nk\r\n$1\r\n0\r\n$2\r\n-1\r\n",
          "*4\r\n$8\r\nSETRANGE\r\n$1\r\nk\r\n$2\r\n10\r\n$1\r\nx\r\n",
          "*6\r\n$4\r\nSCAN\r\n$1\r\n0\r\n$5\r\nMATCH\r\n$1\r\n*\r\n$5\r\nCOUNT\r\n$1\r\n5\r\n",
          "*2\r\n$4\r\nKEYS\r\n$5\r\n[a-z]\r\n",
          "*1\r\n$5\r\nMULTI\r\n",
          "*1\r\n$4\r\nEXEC\r\n",
          "*2\r\n$5\r\nWATCH\r\n$1\r\nk\r\n",
          "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n",
          "*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n",
          "*1\r\n$4\r\nINFO\r\n",
          "*2\r\n$7\r\nCOMMAND\r\n$4\r\nDOCS\r\n",
          "*3\r\n$6\r\nEXPIRE\r\n$1\r\nk\r\n$2\r\n10\r\n",
          "*5\r\n$4\r\nMSET\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n",
          "*3\r\n$6\r\nRENAME\r\n$1\r\na\r\n$1\r\nb\r\n",
          "*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$1\r\nx\r\n",
          "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$1\r\n*\r\n",
          "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n",
          "PING\r\n",
          "SET k \"a\\x41 b\"\r\n",
          "GET 'k'\r\n",
          "*1\r\n$4\r\nTIME\r\n",
          "*4\r\n$7\r\nHINCRBY\r\n$1\r\nh\r\n$1\r\nc\r\n$1\r\n5\r\n",
          "*1\r\n$7\r\nFLUSHDB\r\n",
          "*9\r\n$3\r\nACL\r\n$7\r\nSETUSER\r\n$1\r\nu\r\n$2\r\non\r\n$2\r\n>p\r\n$3\r\n~k*\r\n$6\r\n+@read\r\n$4\r\n-get\r\n$6\r\n+@hash\r\n",
          "*3\r\n$4\r\nAUTH\r\n$1\r\nu\r\n$1\r\np\r\n",
          "*3\r\n$3\r\nACL\r\n$7\r\nGETUSER\r\n$1\r\nu\r\n",
          "*2\r\n$3\r\nACL\r\n$4\r\nLIST\r\n",
          "*3\r\n$3\r\nACL\r\n$7\r\nDELUSER\r\n$1\r\nu\r\n",
          "*3\r\n$3\r\nACL\r\n$3\r\nCAT\r\n$6\r\nstring\r\n",
          "*3\r\n$4\r\nAUTH\r\n$7\r\ndefault\r\n$1\r\nx\r\n",
          "AUTH x\r\n",
          "*2\r\n$6\r\nCLIENT\r\n$4\r\nHELP\r\n",
          "*2\r\n$3\r\nACL\r\n$4\r\nHELP\r\n",
          "*4\r\n$8\r\nSETRANGE\r\n$1\r\nk\r\n$19\r\n9223372036854775807\r\n$1\r\nA\r\n",
          "*3\r\n$11\r\nINCRBYFLOAT\r\n$1\r\nf\r\n$4\r\n+inf\r\n",
          "SETBIT b 7 1\r\n",
          "BITCOUNT b 0 -1 BIT\r\n",
          "BITPOS b 0 2 -1 BYTE\r\n",
          "BITOP XOR d k b\r\n",
          "LCS k b IDX MINMATCHLEN 2 WITHMATCHLEN\r\n",
          "COPY k c DB 3 REPLACE\r\n",
          "MOVE c 2\r\n",
          "SWAPDB 0 1\r\n",
          "RENAMENX k n\r\n",
          "RANDOMKEY\r\n",
          "HINCRBYFLOAT h f 1.5\r\n",
          "HSETNX h g 1\r\n",
          "OBJECT ENCODING h\r\n",
          "MEMORY USAGE k SAMPLES 0\r\n",
          "CONFIG SET save \"900 1\" hz 20\r\n",
          "DUMP h\r\n",
          "RESTORE r 0 \"L\\x01\\x00hi\\x8e\\xb8\\xad\\x12\" REPLACE ABSTTL\r\n",
          "INFO all\r\n",
          "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$70000\r\n" + "v".repeat(70_000) + "\r\n",
          "POST / HTTP/1.1\r\nHost: x\r\n\r\nSET k 1\r\n",
          "GET / HTTP/1.1\r\nhost: x\r\n");

  private static final List<String> MEMCACHE_CORPUS =
      List.of(
          "set k 1 0 5\r\nhello\r\n",
          "get k j\r\n",
          "gets k\r\n",
          "add a 0 10 1\r\nx\r\n",
          "replace k 0 0 2\r\nab\r\n",
          "append k 0 0 1\r\n!\r\n",
          "prepend k 0 0 1\r\n<\r\n",
          "cas k 0 0 1 5\r\nz\r\n",
          "delete k\r\n",
          "incr n 5\r\n",
          "decr n 1\r\n",
          "set n 0 0 2\r\n10\r\n",
          "touch k 10\r\n",
          "gat 10 k\r\n",
          "gats 0 k n\r\n",
          "flush_all\r\n",
          "stats\r\n",
          "stats settings\r\n",
          "version\r\n",
          "verbosity 1\r\n",
          "mg k v f c t k s Oab\r\n",
          "ms k 3 T10 F5 c\r\nabc\r\n",
          "ms k 1 MA\r\nz\r\n",
          "md k q\r\n",
          "ma n N0 J5 D2 v\r\n",
          "mn\r\n",
          "me k\r\n",
          "mg YQ== b v k\r\n",
          "set k 0 0 1 noreply\r\nq\r\n",
          "quit\r\n",
          "set auth 0 0 3\r\nu x\r\n",
          "cas k 0 0 6 \r\nversion\r\n",
          "set k 0 0 4294967295\r\nversion\r\n",
          "set k 0 0 9000 noreply\r\n" + "x".repeat(9000) + "\r\n",
          "ms k 9000 MA\r\n",
          "set k 0 0 1000000\r\n",
          "mg n N30 v t q\r\nmn\r\n",
          "delete k 10 noreply\r\n",
          "flush_all 1767225600\r\n",
          "verbosity x\r\n",
          "get" + " key".repeat(400) + "\r\n",
          "gat 10" + " k".repeat(2_000) + " " + "x".repeat(300) + "\r\n",
          "POST / HTTP/1.1\r\nHost: x\r\n\r\nset k 0 0 1\r\n1\r\n",
          "GET / HTTP/1.1\r\n");

  private static final String[] NUMBERS = {
    "-1",
    "0",
    "1",
    "65536",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "99999999999999999999999",
    "1e400",
    "nan"
  };
  private static final byte[] SPECIAL = {
    '\r', '\n', '*', '$', '-', ':', '"', '\'', '\\', ' ', '0', '9', 0, (byte) 0xFF, '[', '*'
  };

  private final Protocol protocol;
  private final SplittableRandom random;
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final Keyspace keyspace;
  private final ServerState state;

  /** The same keyspace behind passwords (requirepass x; memcached user u, password x). */
  private final ServerState guarded;

  private final RespCommandTable table = RespCommandTable.standard();
  private final MemcacheStats stats = new MemcacheStats();
  private EmbeddedChannel channel;
  private long inputs;
  private long bytes;
  private long closes;
  private long maxBuffered;

  /**
   * @param protocol which parser and handler to fuzz
   * @param seed the generator's seed
   */
  public ProtocolFuzzer(Protocol protocol, long seed) {
    this.protocol = protocol;
    this.random = new SplittableRandom(seed);
    ServerConfig config =
        ServerConfig.of(
            Map.of(
                "maxmemory",
                "4mb",
                "max-request-bytes",
                Integer.toString(MAX_REQUEST),
                "max-item-bytes",
                "8kb"));
    this.keyspace = new Keyspace(config.maxMemory(), System::currentTimeMillis);
    this.state = new ServerState(keyspace, config, scheduler);
    ServerConfig guardedConfig =
        ServerConfig.of(
            Map.of(
                "maxmemory",
                "4mb",
                "max-request-bytes",
                Integer.toString(MAX_REQUEST),
                "max-item-bytes",
                "8kb",
                "requirepass",
                "x"));
    this.guarded =
        new ServerState(
            keyspace,
            guardedConfig,
            scheduler,
            AclUsers.of(guardedConfig),
            MemcacheAuth.parse(List.of("u:x"), "fuzz users"));
  }

  /**
   * Runs {@code count} inputs.
   *
   * @param count how many
   * @return what the run saw
   * @throws AssertionError (via {@link IllegalStateException}) on the first input that breaks a
   *     property, naming the input
   */
  public Report run(long count) {
    for (long i = 0; i < count; i++) {
      byte[] input = next();
      deliver(input);
    }
    return new Report(inputs, bytes, closes, maxBuffered);
  }

  private void deliver(byte[] input) {
    if (channel == null || !channel.isOpen()) {
      if (channel != null) {
        closes++;
        channel.finishAndReleaseAll();
      }
      channel = newChannel();
    }
    inputs++;
    bytes += input.length;
    try {
      int pos = 0;
      int chunks = 1 + random.nextInt(4);
      long replied = 0;
      for (int c = 0; c < chunks && pos < input.length && channel.isOpen(); c++) {
        int end = c == chunks - 1 ? input.length : pos + random.nextInt(input.length - pos + 1);
        channel.writeInbound(Unpooled.wrappedBuffer(input, pos, end - pos));
        pos = end;
        replied += drain();
        channel.checkException();
      }
      if (replied > MAX_REPLY) {
        throw new IllegalStateException("reply of " + replied + " bytes");
      }
      RequestDecoder decoder = channel.pipeline().get(RequestDecoder.class);
      if (decoder != null) {
        long held = decoder.heldBytes();
        maxBuffered = Math.max(maxBuffered, held);
        if (held > MAX_REQUEST + 128 * 1024) {
          throw new IllegalStateException("decoder holds " + held + " bytes");
        }
      }
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          protocol + " input #" + inputs + " broke a property: " + printable(input), e);
    }
  }

  private long drain() {
    long n = 0;
    Object out;
    while ((out = channel.readOutbound()) != null) {
      if (out instanceof ByteBuf b) {
        n += b.readableBytes();
        b.release();
      }
    }
    return n;
  }

  private EmbeddedChannel newChannel() {
    // One connection in four needs a password first, so the pre-authentication paths (and
    // their tighter limits) are fuzzed too.
    ServerState s = random.nextInt(4) == 0 ? guarded : state;
    return protocol == Protocol.RESP
        ? new EmbeddedChannel(RespSession.handlers(s, table))
        : new EmbeddedChannel(MemcacheDispatcher.handlers(s, stats));
  }

  private byte[] next() {
    int kind = random.nextInt(8);
    if (kind < 2) {
      byte[] b = new byte[random.nextInt(48)];
      for (int i = 0; i < b.length; i++) {
        b[i] =
            random.nextInt(3) == 0
                ? SPECIAL[random.nextInt(SPECIAL.length)]
                : (byte) random.nextInt(256);
      }
      return b;
    }
    byte[] b = mutate(pick());
    if (kind == 2) {
      ByteArrayOutputStream glued = new ByteArrayOutputStream();
      glued.writeBytes(b);
      glued.writeBytes(mutate(pick()));
      return glued.toByteArray();
    }
    return b;
  }

  private byte[] pick() {
    List<String> corpus = protocol == Protocol.RESP ? RESP_CORPUS : MEMCACHE_CORPUS;
    return corpus.get(random.nextInt(corpus.size())).getBytes(StandardCharsets.ISO_8859_1);
  }

  private byte[] mutate(byte[] in) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(in);
    int mutations = random.nextInt(5);
    for (int m = 0; m < mutations; m++) {
      byte[] b = out.toByteArray();
      out.reset();
      int at = b.length == 0 ? 0 : random.nextInt(b.length);
      switch (random.nextInt(6)) {
        case 0 -> {
          if (b.length > 0) {
            b[at] ^= (byte) (1 << random.nextInt(8));
          }
          out.writeBytes(b);
        }
        case 1 -> {
          if (b.length > 0) {
            b[at] = SPECIAL[random.nextInt(SPECIAL.length)];
          }
          out.writeBytes(b);
        }
        case 2 -> {
          int len = Math.min(b.length - at, 1 + random.nextInt(8));
          out.write(b, 0, at);
          out.write(b, at + len, b.length - at - len);
        }
        case 3 -> {
          out.write(b, 0, at);
          for (int i = random.nextInt(8); i >= 0; i--) {
            out.write(random.nextInt(256));
          }
          out.write(b, at, b.length - at);
        }
        case 4 -> {
          int len = Math.min(b.length - at, 1 + random.nextInt(16));
          out.write(b, 0, at + len);
          out.write(b, at, b.length - at);
        }
        default -> replaceNumber(b, out);
      }
    }
    return out.toByteArray();
  }

  private void replaceNumber(byte[] b, ByteArrayOutputStream out) {
    int start = -1;
    for (int tries = 0; tries < 8 && start < 0 && b.length > 0; tries++) {
      int at = random.nextInt(b.length);
      if (b[at] >= '0' && b[at] <= '9') {
        start = at;
      }
    }
    if (start < 0) {
      out.writeBytes(b);
      return;
    }
    int end = start;
    while (end < b.length && b[end] >= '0' && b[end] <= '9') {
      end++;
    }
    while (start > 0 && b[start - 1] >= '0' && b[start - 1] <= '9') {
      start--;
    }
    out.write(b, 0, start);
    out.writeBytes(NUMBERS[random.nextInt(NUMBERS.length)].getBytes(StandardCharsets.US_ASCII));
    out.write(b, end, b.length - end);
  }

  private static String printable(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < b.length && i < 300; i++) {
      int c = b[i] & 0xFF;
      sb.append(
          c >= 32 && c < 127 && c != '\\' ? String.valueOf((char) c) : String.format("\\x%02x", c));
    }
    return sb.toString();
  }

  @Override
  public void close() {
    if (channel != null) {
      channel.finishAndReleaseAll();
    }
    scheduler.shutdownNow();
    keyspace.close();
  }
}
