package dev.larder.cli;

import dev.larder.server.ServeCommand;
import java.util.Arrays;
import java.util.OptionalInt;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The product's {@code ./larder} command: {@code serve} and {@code demo}. It depends on the product
 * only (larder-server, and larder-model for the demo's content nodes); the benchmark suite is
 * larder-bench's own command ({@code dev.larder.bench.BenchCommand}), on its own class path, which
 * the {@code ./larder} script runs for {@code ./larder bench}. Exit status 0 on success, 2 for a
 * usage error, 1 when the command failed.
 */
@Command(
    name = "larder",
    mixinStandardHelpOptions = true,
    version = "larder 0.1.0-SNAPSHOT",
    description = "Larder, a compact byte-bounded cache for the JVM: a server and a demo.",
    subcommands = {ServeCommand.class, DemoCommand.class, CommandLine.HelpCommand.class},
    footer = {
      "",
      "Also, through the ./larder script:",
      "  ./larder bench ...  benchmark scenarios against Larder's peers (larder-bench,",
      "                      on its own class path; ./larder bench --help)",
      "  ./larder test       the whole test suite (mvn -B -ntp verify)"
    })
public final class LarderCli implements Runnable {

  @CommandLine.Spec private CommandLine.Model.CommandSpec spec;

  /**
   * Runs the command and exits the JVM with its status.
   *
   * @param args command-line arguments
   */
  public static void main(String[] args) {
    if (args.length > 0
        && args[0].equals("serve")
        && !Arrays.asList(args).contains("--print-jvm-options")) {
      // The server's first use of the store, the commands and Netty, beside the parsing.
      ServeCommand.warmUpInBackground();
      // Plain arguments (most starts, and every timed restart) skip picocli's model, which the
      // AOT cache cannot hold; anything else goes through picocli below.
      OptionalInt served = ServeCommand.servePlain(Arrays.copyOfRange(args, 1, args.length));
      if (served.isPresent()) {
        System.exit(served.getAsInt());
      }
    }
    System.exit(commandLine().execute(args));
  }

  /** Returns the configured picocli command line (tests use it to parse without running). */
  public static CommandLine commandLine() {
    return new CommandLine(new LarderCli())
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setParameterExceptionHandler(new ShortUsageErrors());
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
