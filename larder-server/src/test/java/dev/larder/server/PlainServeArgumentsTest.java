package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code serve}'s plain arguments, read without picocli, say what picocli reads from them; every
 * other form is left to picocli.
 */
class PlainServeArgumentsTest {
  /** Options only picocli reads: help, version, and the launcher's question. */
  private static final Set<String> PICOCLI_ONLY =
      Set.of("-h", "--help", "-V", "--version", "--print-jvm-options");

  @Test
  void everyOptionOfServeIsReadPlainOrLeftToPicocli() {
    Set<String> declared = new TreeSet<>();
    for (OptionSpec option : new CommandLine(new ServeCommand()).getCommandSpec().options()) {
      declared.addAll(List.of(option.names()));
    }
    Set<String> covered = new TreeSet<>(PlainServeArguments.VALUED);
    covered.add(PlainServeArguments.SET);
    covered.addAll(PICOCLI_ONLY);
    assertEquals(declared, covered);
  }

  @Test
  void plainArgumentsGiveWhatPicocliReads() {
    Random random = new Random(20261130);
    List<String> valued = new ArrayList<>(new TreeSet<>(PlainServeArguments.VALUED));
    String[] words = {"127.0.0.1", "512mb", "s3cret", "/tmp/larder dir", "everysec", "a,b", "x=y"};
    String[] numbers = {"0", "-1", "6379", "2147483647", "-2147483648", "7"};
    for (int round = 0; round < 2_000; round++) {
      List<String> args = new ArrayList<>();
      List<String> unused = new ArrayList<>(valued);
      int options = random.nextInt(6);
      for (int i = 0; i < options; i++) {
        String name;
        String value;
        if (random.nextInt(3) == 0) {
          name = "--set";
          value = "key" + random.nextInt(3) + "=" + words[random.nextInt(words.length)];
        } else {
          name = unused.remove(random.nextInt(unused.size()));
          value =
              name.endsWith("port")
                  ? numbers[random.nextInt(numbers.length)]
                  : words[random.nextInt(words.length)];
        }
        if (random.nextBoolean()) {
          args.add(name + "=" + value);
        } else {
          args.add(name);
          args.add(value);
        }
      }
      Optional<ServeCommand> plain = ServeCommand.plain(args);
      assertTrue(plain.isPresent(), "plain arguments left to picocli: " + args);
      ServeCommand parsed = new ServeCommand();
      new CommandLine(parsed).parseArgs(args.toArray(String[]::new));
      assertEquals(parsed.overrides(), plain.get().overrides(), "settings of " + args);
      assertEquals(parsed.configFile(), plain.get().configFile(), "config file of " + args);
    }
  }

  @Test
  void everyOtherFormIsLeftToPicocli() {
    List<List<String>> others =
        List.of(
            List.of("--help"),
            List.of("-h"),
            List.of("--version"),
            List.of("--print-jvm-options"),
            List.of("--print-jvm-options", "--dir", "/tmp/x"),
            List.of("--dir"),
            List.of("--dir="),
            List.of("--dir", "/tmp/x", "--dir", "/tmp/y"),
            List.of("--bind", "--port"),
            List.of("--port", "six"),
            List.of("--port", "010"),
            List.of("--port", "+7"),
            List.of("--port", "0x10"),
            List.of("--port", "2147483648"),
            List.of("--no-such-option", "x"),
            List.of("--set", "novalue"),
            List.of("--set", "=value"),
            List.of("@args.txt"),
            List.of("serve"),
            List.of("--requirepass", "-starts-with-a-dash"));
    for (List<String> args : others) {
      assertTrue(PlainServeArguments.read(args).isEmpty(), "read plain: " + args);
    }
  }
}
