package dev.larder.server.internal.resp;

import static dev.larder.server.internal.resp.RespCommand.Flag.ADMIN;
import static dev.larder.server.internal.resp.RespCommand.Flag.EXCLUSIVE;
import static dev.larder.server.internal.resp.RespCommand.Flag.FAST;

import dev.larder.server.internal.ProcessCpu;
import dev.larder.server.internal.ProcessMemory;
import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.keyspace.ChunkTraffic;
import dev.larder.server.internal.keyspace.GlobPattern;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.net.ClientMemory;
import dev.larder.server.internal.persist.LoadProgress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** INFO, CONFIG, COMMAND and TIME. */
final class ServerCommands {
  /** The sections of INFO and INFO default, in Redis's order. */
  private static final List<String> SECTIONS =
      List.of(
          "server",
          "clients",
          "memory",
          "persistence",
          "stats",
          "replication",
          "cpu",
          "cluster",
          "keyspace");

  /** Every section, for INFO all and everything. */
  private static final List<String> ALL_SECTIONS =
      List.of(
          "server",
          "clients",
          "memory",
          "persistence",
          "stats",
          "replication",
          "cpu",
          "commandstats",
          "cluster",
          "keyspace");

  private ServerCommands() {}

  static void register(RespCommandTable t) {
    t.command("info", -1)
        .doc("server", "Returns information and statistics about the server.", "?section:string*")
        .run(ServerCommands::info);
    t.command("config", -2)
        .flags(ADMIN, EXCLUSIVE)
        .doc(
            "server",
            "A container for server configuration commands.",
            "subcommand:string ?args:string*")
        .run(ServerCommands::config);
    t.command("command", -1)
        .doc("server", "Returns detailed information about all commands.", "?subcommand:string")
        .run(ServerCommands::command);
    t.command("time", 1)
        .flags(FAST)
        .doc("server", "Returns the server time.", "")
        .run(
            c -> {
              java.time.Instant now = java.time.Instant.now();
              c.out().array(2);
              c.out().bulk(Long.toString(now.getEpochSecond()));
              c.out().bulk(Long.toString(now.getNano() / 1000));
            });
  }

  private static void info(RespCall c) {
    java.util.Set<String> wanted = new java.util.HashSet<>();
    for (int i = 1; i < c.argc(); i++) {
      String s = c.option(i);
      switch (s) {
        case "all", "everything" -> wanted.addAll(ALL_SECTIONS);
        case "default" -> wanted.addAll(SECTIONS);
        default -> wanted.add(s);
      }
    }
    if (wanted.isEmpty()) {
      wanted.addAll(SECTIONS);
    }
    StringBuilder sb = new StringBuilder();
    for (String section : ALL_SECTIONS) {
      if (wanted.contains(section)) {
        if (!sb.isEmpty()) {
          sb.append("\r\n");
        }
        sb.append("# ").append(title(section)).append("\r\n");
        if (section.equals("commandstats")) {
          commandStats(c.session.table, sb);
        } else {
          section(c.server(), section, sb);
        }
      }
    }
    c.out().bulk(sb.toString());
  }

  private static String title(String section) {
    return switch (section) {
      case "cpu" -> "CPU";
      case "commandstats" -> "Commandstats";
      default -> Character.toUpperCase(section.charAt(0)) + section.substring(1);
    };
  }

  private static void commandStats(RespCommandTable table, StringBuilder sb) {
    for (RespCommand cmd : table.all()) {
      if (cmd.stats().used()) {
        sb.append("cmdstat_")
            .append(cmd.name())
            .append(':')
            .append(cmd.stats().line())
            .append("\r\n");
      }
    }
  }

  private static void section(ServerState s, String section, StringBuilder sb) {
    Map<String, Object> f = new LinkedHashMap<>();
    Keyspace ks = s.keyspace();
    switch (section) {
      case "server" -> {
        long uptime = (System.currentTimeMillis() - s.startMillis()) / 1000;
        f.put("redis_version", ConnectionCommands.REDIS_VERSION);
        f.put("larder_version", "0.1.0-SNAPSHOT");
        f.put("redis_mode", s.cluster() == null ? "standalone" : "cluster");
        f.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        f.put("arch_bits", 64);
        f.put("process_id", ProcessHandle.current().pid());
        f.put("tcp_port", s.respPort());
        f.put("uptime_in_seconds", uptime);
        f.put("uptime_in_days", uptime / 86400);
        f.put("hz", ConfigParameters.number(s, "hz"));
        f.put("configured_hz", ConfigParameters.number(s, "hz"));
        f.put("run_id", s.runId());
        f.put("server_time_usec", System.currentTimeMillis() * 1000);
        f.put("executable", "larder");
        f.put("config_file", "");
      }
      case "clients" -> {
        f.put("connected_clients", s.connections());
        f.put("maxclients", s.config().maxConnections());
        f.put("blocked_clients", s.blockedClients().blockedCount() + s.clientPause().heldCount());
        f.put("tracking_clients", s.tracking().clients());
      }
      case "memory" -> {
        f.put("used_memory", ks.memoryUsed());
        f.put("used_memory_human", human(ks.memoryUsed()));
        long rss = ProcessMemory.residentBytes();
        f.put("used_memory_rss", rss);
        f.put("used_memory_rss_human", human(rss));
        if (rss > 0 && ks.memoryUsed() > 0) {
          f.put(
              "mem_fragmentation_ratio",
              String.format(Locale.ROOT, "%.2f", (double) rss / ks.memoryUsed()));
        }
        long system = systemMemory();
        if (system > 0) {
          f.put("total_system_memory", system);
          f.put("total_system_memory_human", human(system));
        }
        f.put("maxmemory", ks.maxMemory());
        f.put("maxmemory_human", human(ks.maxMemory()));
        f.put("maxmemory_policy", s.maxMemoryPolicy());
        ClientMemory clients = s.clientMemory();
        f.put("mem_clients_normal", clients.used());
        f.put("mem_clients_peak", clients.peak());
        f.put("maxmemory_clients", clients.budget());
        f.put("maxmemory_clients_human", human(clients.budget()));
        // Hot chunked sets and hashes held open in memory, counted in used_memory.
        long[] open = ks.openCollectionStats();
        f.put("larder_open_collections", open[0]);
        f.put("larder_open_bytes", open[1]);
        f.put("larder_open_opened", open[2]);
        f.put("larder_open_closed", open[3]);
      }
      case "persistence" -> persistence(s, f);
      case "stats" -> {
        long[] st = ks.stats();
        f.put("total_connections_received", s.connectionsReceived());
        f.put("total_commands_processed", s.commandsProcessed());
        f.put("instantaneous_ops_per_sec", s.opsPerSecond());
        f.put("rejected_connections", s.rejectedConnections());
        f.put("expired_keys", st[2]);
        f.put("evicted_keys", st[3]);
        f.put("keyspace_hits", st[0]);
        f.put("keyspace_misses", st[1]);
        f.put("pubsub_channels", s.pubsub().channelCount());
        f.put("pubsub_patterns", s.pubsub().patterns());
        f.put("tracking_total_keys", s.tracking().keys());
        f.put("tracking_total_prefixes", s.tracking().prefixCount());
        ChunkTraffic.Counts chunks = ks.chunkTraffic();
        f.put("larder_chunk_writes", chunks.chunkWrites());
        f.put("larder_chunk_bytes_written", chunks.chunkBytesWritten());
        f.put("larder_chunk_removes", chunks.chunkRemoves());
        f.put("larder_chunk_head_writes", chunks.headWrites());
        f.put("larder_chunk_head_bytes_written", chunks.headBytesWritten());
        f.put("larder_chunk_reads", chunks.chunkReads());
        f.put("larder_chunk_bytes_read", chunks.chunkBytesRead());
        // Larder never forks: checkpoints are written by a thread of the server's own process.
        f.put("latest_fork_usec", 0);
        f.put("total_forks", 0);
        ClientMemory clients = s.clientMemory();
        f.put("evicted_clients", clients.disconnections(ClientMemory.Reason.BUDGET));
        f.put(
            "client_query_buffer_limit_disconnections",
            clients.disconnections(ClientMemory.Reason.QUERY_LIMIT));
        f.put(
            "client_output_buffer_limit_disconnections",
            clients.disconnections(ClientMemory.Reason.OUTPUT_LIMIT));
      }
      case "keyspace" -> {
        if (!s.keyspaceCountable()) {
          break;
        }
        long[][] counts = ks.counts();
        for (int db = 0; db < counts.length; db++) {
          if (counts[db][0] > 0) {
            f.put(
                "db" + db,
                "keys="
                    + counts[db][0]
                    + ",expires="
                    + counts[db][1]
                    + ",avg_ttl="
                    + counts[db][2]);
          }
        }
      }
      case "cpu" -> {
        ProcessCpu.Times cpu = ProcessCpu.read();
        if (cpu != null) {
          f.put("used_cpu_sys", seconds(cpu.system()));
          f.put("used_cpu_user", seconds(cpu.user()));
          f.put("used_cpu_sys_children", seconds(cpu.childrenSystem()));
          f.put("used_cpu_user_children", seconds(cpu.childrenUser()));
        }
      }
      case "replication", "cluster" -> ClusterCommands.info(s, section, f);
      default -> throw new IllegalArgumentException(section);
    }
    f.forEach((k, v) -> sb.append(k).append(':').append(v).append("\r\n"));
  }

  /** Redis's fields for a server without persistence, or the log's (see ServerLog.info). */
  private static void persistence(ServerState s, Map<String, Object> f) {
    LoadProgress loading = s.loading();
    if (loading != null) {
      // the log is not open yet: the load's fields and what the configuration says
      f.put("loading", 1);
      f.put("async_loading", 0);
      f.putAll(loading.info(System.currentTimeMillis()));
      f.put("aof_enabled", s.config().dir() == null ? 0 : 1);
      if (s.config().dir() != null) {
        f.put("larder_log_dir", s.config().dir().toAbsolutePath());
        f.put("larder_appendfsync", s.config().appendfsync());
      }
      return;
    }
    if (s.log() != null) {
      f.putAll(s.log().info());
      f.putAll(s.replies().info());
      return;
    }
    f.put("loading", 0);
    f.put("async_loading", 0);
    f.put("rdb_changes_since_last_save", s.changeCount().changes());
    f.put("rdb_bgsave_in_progress", 0);
    f.put("rdb_last_save_time", s.startMillis() / 1000);
    f.put("rdb_last_bgsave_status", "ok");
    f.put("aof_enabled", 0);
    f.put("aof_rewrite_in_progress", 0);
    f.put("aof_last_bgrewrite_status", "ok");
    f.put("aof_last_write_status", "ok");
  }

  private static String seconds(double s) {
    return String.format(Locale.ROOT, "%.6f", s);
  }

  /** The machine's physical memory, or 0 if the JVM cannot tell. */
  private static long systemMemory() {
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getTotalMemorySize();
    }
    return 0;
  }

  private static String human(long bytes) {
    String[] units = {"B", "K", "M", "G", "T"};
    double v = bytes;
    int u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return u == 0 ? bytes + "B" : String.format(Locale.ROOT, "%.2f%s", v, units[u]);
  }

  private static void config(RespCall c) {
    switch (c.option(1)) {
      case "get" -> configGet(c);
      case "set" -> configSet(c);
      case "resetstat" -> {
        if (c.argc() != 2) {
          throw new RespError("ERR wrong number of arguments for 'config|resetstat' command");
        }
        c.keyspace().resetStats();
        c.server().resetStats();
        c.session.table.all().forEach(cmd -> cmd.stats().reset());
        c.out().ok();
      }
      case "help" -> RespHelp.reply(c, RespHelp.CONFIG);
      default ->
          throw new RespError("ERR unknown subcommand '" + c.text(1) + "'. Try CONFIG HELP.");
    }
  }

  private static void configGet(RespCall c) {
    if (c.argc() < 3) {
      throw new RespError("ERR wrong number of arguments for 'config|get' command");
    }
    Map<String, String> found = new LinkedHashMap<>();
    for (ConfigParameters.Parameter p : ConfigParameters.ALL.values()) {
      for (int i = 2; i < c.argc(); i++) {
        GlobPattern pattern = new GlobPattern(c.arg(i));
        String value = null;
        if (pattern.matches(p.name().getBytes(StandardCharsets.US_ASCII), true)) {
          value = p.get().apply(c.server());
          found.put(p.name(), value);
        }
        if (p.alias() != null
            && pattern.matches(p.alias().getBytes(StandardCharsets.US_ASCII), true)) {
          found.put(p.alias(), value != null ? value : p.get().apply(c.server()));
        }
      }
    }
    c.out().map(found.size());
    found.forEach(
        (k, v) -> {
          c.out().bulk(k);
          c.out().bulk(v);
        });
  }

  /**
   * Checks every pair first and applies them only if all pass, as Redis 7 does; a name given twice
   * (or by its name and its alias) is refused.
   */
  private static void configSet(RespCall c) {
    if (c.argc() < 4 || c.argc() % 2 != 0) {
      throw new RespError("ERR wrong number of arguments for 'config|set' command");
    }
    Map<ConfigParameters.Parameter, String> checked = new LinkedHashMap<>();
    for (int i = 2; i < c.argc(); i += 2) {
      String name = c.option(i);
      ConfigParameters.Parameter p = ConfigParameters.byName(name);
      if (p == null) {
        throw new RespError(
            "ERR Unknown option or number of arguments for CONFIG SET - '" + c.text(i) + "'");
      }
      if (checked.containsKey(p)) {
        throw configFailed(c.text(i), "duplicate parameter");
      }
      if (p.check() == null) {
        throw configFailed(c.text(i), "can't set immutable config");
      }
      try {
        checked.put(p, p.check().apply(c.text(i + 1)));
      } catch (ConfigParameters.Refusal e) {
        throw configFailed(c.text(i), e.getMessage());
      }
    }
    checked.forEach((p, v) -> p.apply().apply(c.server(), v));
    c.out().ok();
  }

  private static RespError configFailed(String name, String reason) {
    return new RespError(
        "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason);
  }

  private static void command(RespCall c) {
    RespCommandTable table = c.session.table;
    String sub = c.argc() > 1 ? c.option(1) : "";
    switch (sub) {
      case "" -> {
        c.out().array(table.all().size());
        table.all().forEach(cmd -> CommandInfo.info(c.out(), cmd));
      }
      case "count" -> c.out().integer(table.all().size());
      case "list" -> CommandInfo.list(c);
      case "info" -> {
        c.out().array(c.argc() - 2);
        for (int i = 2; i < c.argc(); i++) {
          RespCommand cmd = table.get(c.text(i));
          if (cmd == null) {
            c.out().nullArray();
          } else {
            CommandInfo.info(c.out(), cmd);
          }
        }
      }
      case "docs" -> {
        List<RespCommand> cmds = new ArrayList<>();
        for (int i = 2; i < c.argc(); i++) {
          RespCommand cmd = table.get(c.text(i));
          if (cmd != null) {
            cmds.add(cmd);
          }
        }
        if (c.argc() == 2) {
          cmds.addAll(table.all());
        }
        c.out().map(cmds.size());
        cmds.forEach(cmd -> CommandInfo.docs(c.out(), cmd));
      }
      case "getkeys" -> CommandInfo.getKeys(c, false);
      case "getkeysandflags" -> CommandInfo.getKeys(c, true);
      case "help" -> RespHelp.reply(c, RespHelp.COMMAND);
      default ->
          throw new RespError("ERR unknown subcommand '" + c.text(1) + "'. Try COMMAND HELP.");
    }
  }
}
