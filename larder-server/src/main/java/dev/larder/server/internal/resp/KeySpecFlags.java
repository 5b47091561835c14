package dev.larder.server.internal.resp;

import java.util.List;

/**
 * The key flags COMMAND GETKEYSANDFLAGS reports for each key of a request, as Redis 7.0 declares
 * them in its commands' key specifications ({@code RO}, {@code RW}, {@code OW}, {@code RM}, then
 * {@code access}, {@code update}, {@code insert}, {@code delete}, {@code variable_flags}, in that
 * order). A command has one flag set per key specification; the first key of a request gets the
 * first set and every later key the last, which is how Redis assigns them for every command Larder
 * serves (LMOVE's source and destination, SINTERSTORE's destination and sources, SORT's key and
 * STORE destination). OBJECT and MEMORY stand for their subcommands, whose key is read only. SET
 * and BITFIELD, whose flags depend on their options, get them as Redis's own key search gives them:
 * SET is {@code RW access update} with GET, else {@code OW update}; BITFIELD is {@code RO access}
 * when it only reads (GET and OVERFLOW), else {@code RW access update}.
 *
 * <p>The flags are those of the command's key specifications ({@link KeySpecs}), and {@code
 * KeySpecFlagsTest} checks that every command with keys has some.
 *
 * <p>Stateless and thread-safe.
 */
final class KeySpecFlags {
  private KeySpecFlags() {}

  /**
   * Returns whether the command has key flags declared.
   *
   * @param command a lower-case command name
   */
  static boolean declared(String command) {
    return !KeySpecs.of(command).isEmpty() || command.equals("object") || command.equals("memory");
  }

  /**
   * Returns the flags of a request's key, or null if the command has none declared.
   *
   * @param command a lower-case command name
   * @param first whether it is the request's first key
   * @param args the request's words, the name included
   */
  static List<String> of(String command, boolean first, List<byte[]> args) {
    if (command.equals("set")) {
      return hasWord(args, 3, "get") ? READ_WRITE : List.of("OW", "update");
    }
    if (command.equals("bitfield")) {
      return bitfieldReadsOnly(args) ? List.of("RO", "access") : READ_WRITE;
    }
    if (command.equals("object") || command.equals("memory")) {
      return List.of("RO");
    }
    List<KeySpecs.KeySpec> specs = KeySpecs.of(command);
    if (specs.isEmpty()) {
      return null;
    }
    return (first ? specs.getFirst() : specs.getLast()).flags();
  }

  private static final List<String> READ_WRITE = List.of("RW", "access", "update");

  private static boolean hasWord(List<byte[]> args, int from, String word) {
    for (int i = from; i < args.size(); i++) {
      if (lower(args.get(i)).equals(word)) {
        return true;
      }
    }
    return false;
  }

  /** Whether a BITFIELD only reads: GET and OVERFLOW with their arguments, nothing else. */
  private static boolean bitfieldReadsOnly(List<byte[]> args) {
    for (int i = 2; i < args.size(); i++) {
      int left = args.size() - i - 1;
      String word = lower(args.get(i));
      if (word.equals("get") && left >= 2) {
        i += 2;
      } else if (word.equals("overflow") && left >= 1) {
        i += 1;
      } else {
        return false;
      }
    }
    return true;
  }

  private static String lower(byte[] word) {
    return new String(word, java.nio.charset.StandardCharsets.ISO_8859_1)
        .toLowerCase(java.util.Locale.ROOT);
  }
}
