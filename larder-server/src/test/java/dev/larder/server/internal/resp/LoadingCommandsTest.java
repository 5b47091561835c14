package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which commands run while a durable server loads (Redis 7.0's {@code loading} flag). */
class LoadingCommandsTest {

  private static List<byte[]> words(String... w) {
    List<byte[]> out = new ArrayList<>();
    for (String s : w) {
      out.add(s.getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  private static boolean allowed(String... w) {
    return LoadingCommands.allowed(w[0], words(w));
  }

  @Test
  void everyNameIsACommandOfTheTable() {
    RespCommandTable table = RespCommandTable.standard();
    for (String name : LoadingCommands.names()) {
      String command = name.contains("|") ? name.substring(0, name.indexOf('|')) : name;
      assertNotNull(table.get(command), name);
    }
  }

  @Test
  void whatReadsOrChangesDataIsRefusedPingIncluded() {
    assertFalse(allowed("ping"));
    assertFalse(allowed("get", "k"));
    assertFalse(allowed("dbsize"));
    assertFalse(allowed("scan", "0"));
    assertFalse(allowed("flushall"));
    assertFalse(allowed("save"));
    assertFalse(allowed("object", "encoding", "k"));
    assertFalse(allowed("memory", "usage", "k"));
    assertFalse(allowed("object"));
  }

  @Test
  void connectionAndServerCommandsRun() {
    assertTrue(allowed("info", "persistence"));
    assertTrue(allowed("echo", "x"));
    assertTrue(allowed("hello", "3"));
    assertTrue(allowed("client", "list"));
    assertTrue(allowed("object", "HELP"));
    assertTrue(allowed("multi"));
    assertTrue(allowed("exec"));
    assertTrue(allowed("config", "get", "maxmemory"));
    assertTrue(allowed("config", "set", "notify-keyspace-events", "KEA"));
  }

  @Test
  void configSetOfMaxmemoryIsRefusedAmongOtherParameters() {
    assertFalse(allowed("config", "set", "maxmemory", "1mb"));
    assertFalse(allowed("config", "SET", "notify-keyspace-events", "KEA", "MaxMemory", "1mb"));
  }
}
