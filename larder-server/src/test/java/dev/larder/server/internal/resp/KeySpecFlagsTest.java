package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every command with keys has its key flags declared, so COMMAND GETKEYSANDFLAGS never answers an
 * empty set for a key; a command without keys has none.
 */
class KeySpecFlagsTest {
  @Test
  void everyCommandWithKeysHasFlags() {
    List<String> missing = new ArrayList<>();
    List<String> extra = new ArrayList<>();
    for (RespCommand cmd : RespCommandTable.standard().all()) {
      boolean declared = KeySpecFlags.declared(cmd.name());
      if (cmd.hasKeys() && !declared) {
        missing.add(cmd.name());
      } else if (!cmd.hasKeys() && declared) {
        extra.add(cmd.name());
      }
    }
    assertEquals(List.of(), missing, "commands with keys but no flags");
    assertEquals(List.of(), extra, "flags declared for commands without keys");
  }
}
