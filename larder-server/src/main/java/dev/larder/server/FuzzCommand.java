package dev.larder.server;

import dev.larder.server.internal.fuzz.ProtocolFuzzer;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code larder serve fuzz}: runs the protocol fuzzer ({@code ProtocolFuzzer}) over both
 * parsers and handlers and prints the counts. Exit status 1 on the first input that breaks a
 * property, with the input printed.
 */
@Command(
    name = "fuzz",
    mixinStandardHelpOptions = true,
    description = "Fuzzes the RESP and memcached parsers and handlers with random and mutated"
        + " requests (no network).")
public final class FuzzCommand implements Callable<Integer> {
  @Option(names = "--inputs", defaultValue = "10000000",
      description = "inputs per protocol (default ${DEFAULT-VALUE})")
  private long inputs;

  @Option(names = "--seed", defaultValue = "1", description = "generator seed")
  private long seed;

  @Option(names = "--protocol", description = "RESP or MEMCACHE (default: both, one after the"
      + " other)")
  private ProtocolFuzzer.Protocol only;

  private static final long STEP = 1_000_000;

  /** Creates the command; picocli fills its options. */
  public FuzzCommand() {}

  @Override
  public Integer call() {
    for (ProtocolFuzzer.Protocol p : ProtocolFuzzer.Protocol.values()) {
      if (only != null && only != p) {
        continue;
      }
      long start = System.nanoTime();
      if (inputs <= 0) {
        return 0;
      }
      try (ProtocolFuzzer fuzzer = new ProtocolFuzzer(p, seed)) {
        ProtocolFuzzer.Report r = null;
        for (long done = 0; done < inputs; done += STEP) {
          r = fuzzer.run(Math.min(STEP, inputs - done));
          System.out.printf("%s: %,d inputs so far%n", p, r.inputs());
        }
        System.out.printf("%s: %,d inputs, %,d bytes, %,d connections closed by the server,"
            + " at most %,d bytes buffered, %.1f s, no property broken%n", p, r.inputs(),
            r.bytes(), r.closes(), r.maxBuffered(), (System.nanoTime() - start) / 1e9);
      } catch (IllegalStateException e) {
        System.out.println(e.getMessage());
        e.printStackTrace(System.out);
        return 1;
      }
    }
    return 0;
  }
}
