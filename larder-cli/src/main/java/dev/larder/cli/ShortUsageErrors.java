package dev.larder.cli;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * Reports a usage error in three lines or so instead of picocli's default of the error followed by
 * the command's whole help: the error, picocli's suggestions for a mistyped option or command when
 * it has any, and the command to get the help. Exit status 2 (the command's {@code
 * exitCodeOnInvalidInput}). Stateless and thread-safe. Used by {@code ./larder bench} too.
 */
public final class ShortUsageErrors implements CommandLine.IParameterExceptionHandler {

  @Override
  public int handleParseException(CommandLine.ParameterException error, String[] args) {
    CommandLine command = error.getCommandLine();
    PrintWriter err = command.getErr();
    String name = command.getCommandSpec().qualifiedName();
    err.println(name + ": " + error.getMessage());
    CommandLine.UnmatchedArgumentException.printSuggestions(error, err);
    err.println("Try '" + name + " --help' for the options.");
    err.flush();
    return command.getCommandSpec().exitCodeOnInvalidInput();
  }
}
