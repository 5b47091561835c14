package dev.larder.server.internal.resp;

import dev.larder.server.internal.keyspace.GlobPattern;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One ACL user: a name and its current {@link Rules}. Connections authenticated as the user keep
 * this object, so ACL SETUSER changes apply to them at their next command, and ACL DELUSER marks it
 * {@link #removed()} (the dispatcher then closes them, as Redis does).
 *
 * <p>Thread-safe: the rules are an immutable snapshot replaced as a whole.
 */
public final class AclUser {
  private final String name;
  private volatile Rules rules;
  private volatile boolean removed;

  AclUser(String name, Rules rules) {
    this.name = name;
    this.rules = rules;
  }

  /** Returns the user's name. */
  public String name() {
    return name;
  }

  /** Returns the current rules. */
  public Rules rules() {
    return rules;
  }

  void rules(Rules next) {
    this.rules = next;
  }

  /** Returns whether ACL DELUSER removed the user. */
  public boolean removed() {
    return removed;
  }

  void markRemoved() {
    removed = true;
  }

  /**
   * Returns whether the user is on and the password is one of its own (or it has nopass).
   *
   * @param password a password attempt
   */
  public boolean accepts(byte[] password) {
    Rules r = rules;
    if (!r.on()) {
      return false;
    }
    if (r.nopass()) {
      return true;
    }
    byte[] hash = sha256Hex(password).getBytes(StandardCharsets.US_ASCII);
    boolean match = false;
    for (String h : r.passwords()) {
      // Every stored hash is compared in constant time, so timing tells nothing of the attempt.
      match |= MessageDigest.isEqual(hash, h.getBytes(StandardCharsets.US_ASCII));
    }
    return match;
  }

  /**
   * Returns their SHA-256 in lower-case hex, the form ACL files and GETUSER show.
   *
   * @param password bytes
   */
  static String sha256Hex(byte[] password) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(password));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  /**
   * A user's rules, immutable.
   *
   * @param on whether the user may authenticate
   * @param nopass whether any password is accepted
   * @param passwords SHA-256 hex hashes of its passwords
   * @param commands the commands it may run (lower-case names)
   * @param allCommands whether that is every command
   * @param commandRules the command rules since the last reset, to describe them
   * @param allKeys whether every key is accessible
   * @param keyPatterns the key patterns (without {@code ~})
   * @param allChannels whether every channel is: accepted and shown so that Redis ACL files load
   *     unchanged; the server has no pub/sub, so it restricts nothing
   * @param channelPatterns channel patterns (without {@code &})
   */
  public record Rules(
      boolean on,
      boolean nopass,
      List<String> passwords,
      Set<String> commands,
      boolean allCommands,
      List<String> commandRules,
      boolean allKeys,
      List<String> keyPatterns,
      boolean allChannels,
      List<String> channelPatterns) {

    /** A new user's rules: off, no password, no commands, no keys, no channels. */
    static Rules fresh() {
      return new Rules(
          false,
          false,
          List.of(),
          Set.of(),
          false,
          List.of("-@all"),
          false,
          List.of(),
          false,
          List.of());
    }

    /**
     * Returns whether the user may run it.
     *
     * @param name a command's name
     */
    boolean permits(String name) {
      return allCommands || commands.contains(name);
    }

    /**
     * Returns whether a key pattern admits it.
     *
     * @param key a key
     */
    boolean permitsKey(byte[] key) {
      if (allKeys) {
        return true;
      }
      for (String p : keyPatterns) {
        if (new GlobPattern(p.getBytes(StandardCharsets.UTF_8)).matches(key, false)) {
          return true;
        }
      }
      return false;
    }

    /** Returns the rules in ACL LIST's form, without {@code user name}. */
    String describe() {
      StringBuilder sb = new StringBuilder(on ? "on" : "off");
      if (nopass) {
        sb.append(" nopass");
      }
      passwords.forEach(h -> sb.append(" #").append(h));
      keys(sb);
      sb.append(' ').append(channels());
      sb.append(' ').append(String.join(" ", commandRules));
      return sb.toString();
    }

    /** Returns the key patterns as GETUSER shows them. */
    String keys() {
      StringBuilder sb = new StringBuilder();
      keys(sb);
      return sb.toString().trim();
    }

    private void keys(StringBuilder sb) {
      if (allKeys) {
        sb.append(" ~*");
      } else {
        keyPatterns.forEach(p -> sb.append(" ~").append(p));
      }
    }

    /** Returns the channel patterns as ACL LIST shows them. */
    String channels() {
      if (allChannels) {
        return "&*";
      }
      if (channelPatterns.isEmpty()) {
        return "resetchannels";
      }
      StringBuilder sb = new StringBuilder();
      channelPatterns.forEach(p -> sb.append(sb.isEmpty() ? "" : " ").append('&').append(p));
      return sb.toString();
    }

    /**
     * Applies ACL SETUSER rules, in order.
     *
     * @param ops the rules
     * @param categories every command's categories, by name
     * @return the new rules
     * @throws RuleError naming the first rule that is not valid
     */
    Rules apply(List<String> ops, Map<String, Set<String>> categories) {
      Editor e = new Editor(this);
      for (String op : ops) {
        e.apply(op, categories);
      }
      return e.build(categories.size());
    }
  }

  /** A rule that cannot be applied: the rule and Redis's reason. */
  static final class RuleError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String rule;

    RuleError(String rule, String reason) {
      super(reason, null, false, false);
      this.rule = rule;
    }
  }

  /** Applies rules to a mutable copy; nothing is published until every rule has applied. */
  private static final class Editor {
    static final String UNKNOWN = "Unknown command or category name in ACL";
    boolean on;
    boolean nopass;
    List<String> passwords;
    Set<String> commands;
    List<String> commandRules;
    boolean allKeys;
    List<String> keyPatterns;
    boolean allChannels;
    List<String> channelPatterns;

    Editor(Rules r) {
      on = r.on();
      nopass = r.nopass();
      passwords = new ArrayList<>(r.passwords());
      commands = new TreeSet<>(r.commands());
      commandRules = new ArrayList<>(r.commandRules());
      allKeys = r.allKeys();
      keyPatterns = new ArrayList<>(r.keyPatterns());
      allChannels = r.allChannels();
      channelPatterns = new ArrayList<>(r.channelPatterns());
    }

    Rules build(int commandCount) {
      return new Rules(
          on,
          nopass,
          List.copyOf(passwords),
          Set.copyOf(commands),
          commands.size() == commandCount,
          List.copyOf(commandRules),
          allKeys,
          List.copyOf(keyPatterns),
          allChannels,
          List.copyOf(channelPatterns));
    }

    void apply(String op, Map<String, Set<String>> categories) {
      String lower = op.toLowerCase(Locale.ROOT);
      switch (lower) {
        case "on" -> on = true;
        case "off" -> on = false;
        case "nopass" -> {
          nopass = true;
          passwords.clear();
        }
        case "resetpass" -> {
          nopass = false;
          passwords.clear();
        }
        case "allkeys" -> {
          allKeys = true;
          keyPatterns.clear();
        }
        case "resetkeys" -> {
          allKeys = false;
          keyPatterns.clear();
        }
        case "allchannels" -> {
          allChannels = true;
          channelPatterns.clear();
        }
        case "resetchannels" -> {
          allChannels = false;
          channelPatterns.clear();
        }
        case "allcommands" -> apply("+@all", categories);
        case "nocommands" -> apply("-@all", categories);
        case "reset" -> {
          apply("resetpass", categories);
          apply("resetkeys", categories);
          apply("resetchannels", categories);
          apply("off", categories);
          apply("-@all", categories);
        }
        case "sanitize-payload", "skip-sanitize-payload", "clearselectors" -> {}
        default -> applyPrefixed(op, categories);
      }
    }

    private void applyPrefixed(String op, Map<String, Set<String>> categories) {
      if (op.isEmpty()) {
        throw new RuleError(op, "Syntax error");
      }
      String rest = op.substring(1);
      switch (op.charAt(0)) {
        case '>' -> addPassword(AclUser.sha256Hex(rest.getBytes(StandardCharsets.UTF_8)));
        case '#' -> addPassword(checkHash(op, rest));
        case '<' -> removePassword(op, AclUser.sha256Hex(rest.getBytes(StandardCharsets.UTF_8)));
        case '!' -> removePassword(op, checkHash(op, rest));
        case '~' -> {
          if (allKeys) {
            throw new RuleError(
                op,
                "Adding a pattern after the * pattern (or the 'allkeys'"
                    + " flag) is not valid and does not have any effect. Try 'resetkeys' to start"
                    + " with an empty list of patterns");
          }
          if (rest.equals("*")) {
            allKeys = true;
            keyPatterns.clear();
          } else if (!keyPatterns.contains(rest)) {
            keyPatterns.add(rest);
          }
        }
        case '&' -> {
          if (rest.equals("*")) {
            allChannels = true;
            channelPatterns.clear();
          } else if (!allChannels && !channelPatterns.contains(rest)) {
            channelPatterns.add(rest);
          }
        }
        case '+', '-' ->
            commandRule(op, op.charAt(0) == '+', rest.toLowerCase(Locale.ROOT), categories);
        default -> throw new RuleError(op, "Syntax error");
      }
    }

    private void commandRule(
        String op, boolean allow, String what, Map<String, Set<String>> categories) {
      if (what.equals("@all")) {
        commands.clear();
        if (allow) {
          commands.addAll(categories.keySet());
        }
        commandRules.clear();
        commandRules.add(allow ? "+@all" : "-@all");
        return;
      }
      List<String> affected = new ArrayList<>();
      if (what.startsWith("@")) {
        String category = what.substring(1);
        if (!AclCategory.ALL.contains(category)) {
          throw new RuleError(op, UNKNOWN);
        }
        categories.forEach(
            (name, cats) -> {
              if (cats.contains(category)) {
                affected.add(name);
              }
            });
      } else if (categories.containsKey(what)) {
        affected.add(what);
      } else {
        // Unknown commands, and subcommand rules (+config|get): Larder's table has no
        // subcommand entries, and granting the whole command would grant more than asked.
        throw new RuleError(op, UNKNOWN);
      }
      if (allow) {
        commands.addAll(affected);
      } else {
        affected.forEach(commands::remove);
      }
      commandRules.add((allow ? "+" : "-") + what);
    }

    private void addPassword(String hash) {
      nopass = false;
      if (!passwords.contains(hash)) {
        passwords.add(hash);
      }
    }

    private void removePassword(String op, String hash) {
      if (!passwords.remove(hash)) {
        throw new RuleError(
            op, "The password you are trying to remove from the user does not exist");
      }
    }

    private static String checkHash(String op, String hash) {
      if (!hash.matches("[0-9a-f]{64}")) {
        throw new RuleError(
            op,
            "The password hash must be exactly 64 characters and contain"
                + " only lowercase hexadecimal characters");
      }
      return hash;
    }
  }
}
