package dev.larder.cli;

import dev.larder.server.ServeCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ./larder} command: {@code demo} and {@code bench}. Exit status 0 on success, 2 for a
 * usage error, 1 when the command failed.
 */
@Command(
    name = "larder",
    mixinStandardHelpOptions = true,
    version = "larder 0.1.0-SNAPSHOT",
    description = "Larder, a compact byte-bounded cache for the JVM: demo and benchmarks.",
    subcommands = {DemoCommand.class, BenchCommand.class, ServeCommand.class,
        CommandLine.HelpCommand.class})
public final class LarderCli implements Runnable {

  @CommandLine.Spec private CommandLine.Model.CommandSpec spec;

  /**
   * @param args command-line arguments
   */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** @return the configured picocli command line (tests use it to parse without running) */
  public static CommandLine commandLine() {
    return new CommandLine(new LarderCli()).setCaseInsensitiveEnumValuesAllowed(true);
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
