package dev.larder.server.internal.resp;

import dev.larder.server.ServerConfig;
import dev.larder.server.ServerSetting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The server's ACL users, as Redis 7 keeps them: the {@code default} user (on, all commands and
 * keys; no password unless {@code requirepass} gives one) and the users an {@code aclfile} declares
 * or ACL SETUSER creates. A connection starts authenticated as {@code default} when that user is on
 * and needs no password, else unauthenticated until AUTH or HELLO AUTH succeeds.
 *
 * <p>The aclfile has Redis's format: one {@code user <name> <rule>...} line per user; blank lines
 * and lines starting with {@code #} are skipped. A {@code default} line there replaces what {@code
 * requirepass} set. Users changed at run time are not written back (no ACL SAVE).
 *
 * <p>Thread-safe: changes are serialized; readers see each user's rules as one snapshot.
 */
public final class AclUsers {
  /** The user every server has. */
  public static final String DEFAULT = "default";

  private final Map<String, Set<String>> categories;
  private final ConcurrentSkipListMap<String, AclUser> users = new ConcurrentSkipListMap<>();

  private AclUsers(RespCommandTable table) {
    Map<String, Set<String>> byName = new LinkedHashMap<>();
    table.all().forEach(c -> byName.put(c.name(), AclCategory.of(c)));
    this.categories = Collections.unmodifiableMap(byName);
  }

  /**
   * Builds the users of a configuration: {@code default} from {@code requirepass}, then the
   * aclfile's users.
   *
   * @param config the configuration
   * @return the users
   * @throws IllegalArgumentException if the aclfile has an invalid line, or if the server would
   *     accept RESP connections off loopback without a password
   * @throws UncheckedIOException if the aclfile cannot be read
   */
  public static AclUsers of(ServerConfig config) {
    AclUsers acl = new AclUsers(RespCommandTable.standard());
    String password = config.password();
    acl.define(
        DEFAULT,
        password.isEmpty()
            ? List.of("on", "nopass", "~*", "&*", "+@all")
            : List.of("on", ">" + password, "~*", "&*", "+@all"));
    String file = config.get(ServerSetting.ACLFILE);
    if (!file.isEmpty()) {
      acl.load(Path.of(file));
    }
    if (!config.loopback() && config.respPort() >= 0 && acl.initialUser() != null) {
      throw new IllegalArgumentException(
          "bind "
              + config.bind()
              + " is not a loopback"
              + " address and the default user needs no password: set requirepass, or give the"
              + " default user a password (or 'off') in the aclfile; Larder does not accept"
              + " unauthenticated RESP connections off loopback");
    }
    return acl;
  }

  private void load(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("aclfile " + file + ": " + e.getMessage(), e);
    }
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      List<String> words = Arrays.asList(line.split("\\s+"));
      if (words.size() < 2 || !words.getFirst().equals("user")) {
        throw new IllegalArgumentException(
            "aclfile " + file + " line " + (i + 1) + ": expected 'user <name> <rule>...'");
      }
      try {
        define(words.get(1), words.subList(2, words.size()));
      } catch (AclUser.RuleError e) {
        throw new IllegalArgumentException(
            "aclfile " + file + " line " + (i + 1) + ": rule '" + e.rule + "': " + e.getMessage(),
            e);
      }
    }
  }

  /** Replaces (not edits) a user with one built from fresh rules, as an aclfile line does. */
  private void define(String name, List<String> rules) {
    checkName(name);
    AclUser user = users.computeIfAbsent(name, n -> new AclUser(n, AclUser.Rules.fresh()));
    user.rules(AclUser.Rules.fresh().apply(rules, categories));
  }

  /**
   * Creates a user or edits its rules (ACL SETUSER): all the rules apply or none does.
   *
   * @param name the user
   * @param rules the rules, applied in order
   * @throws AclUser.RuleError for the first invalid rule
   */
  synchronized void setUser(String name, List<String> rules) {
    checkName(name);
    AclUser existing = users.get(name);
    AclUser.Rules base = existing == null ? AclUser.Rules.fresh() : existing.rules();
    AclUser.Rules next = base.apply(rules, categories);
    if (existing == null) {
      users.put(name, new AclUser(name, next));
    } else {
      existing.rules(next);
    }
  }

  /**
   * Removes users (ACL DELUSER); their connections are closed at their next command.
   *
   * @param names the users
   * @return how many existed
   * @throws RespError for {@code default}
   */
  synchronized int delete(List<String> names) {
    if (names.contains(DEFAULT)) {
      throw new RespError("ERR The 'default' user cannot be removed");
    }
    int removed = 0;
    for (String n : names) {
      AclUser u = users.remove(n);
      if (u != null) {
        u.markRemoved();
        removed++;
      }
    }
    return removed;
  }

  /**
   * Returns it, or null.
   *
   * @param name a user
   */
  public AclUser get(String name) {
    return users.get(name);
  }

  /** Returns every user, by name. */
  List<AclUser> all() {
    return new ArrayList<>(users.values());
  }

  /** Returns every command's categories, by command name. */
  Map<String, Set<String>> categories() {
    return categories;
  }

  /**
   * Checks a user name and password, as AUTH does.
   *
   * @param name the user
   * @param password the password attempt
   * @return the user if it exists, is on and accepts the password; else null
   */
  public AclUser authenticate(String name, byte[] password) {
    AclUser u = users.get(name);
    if (u == null) {
      // Hash anyway, so that an unknown user costs what a wrong password does.
      AclUser.sha256Hex(password);
      return null;
    }
    return u.accepts(password) ? u : null;
  }

  /** Returns the user a new connection is authenticated as, or null if it must AUTH first. */
  public AclUser initialUser() {
    AclUser d = users.get(DEFAULT);
    return d != null && d.rules().on() && d.rules().nopass() ? d : null;
  }

  private static void checkName(String name) {
    if (name.isEmpty() || name.chars().anyMatch(ch -> ch <= ' ' || ch == 127)) {
      throw new AclUser.RuleError(name, "Usernames can't contain spaces or null characters");
    }
  }
}
