package dev.larder.bench.server;

import dev.larder.bench.harness.FreshPortStart;
import dev.larder.bench.harness.LoopbackChild;
import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One server under test, on 127.0.0.1: Larder in this JVM, or redis-server or memcached as a child
 * process (persistence off, the same memory limit). Knows its ports and its resident memory.
 * Closing stops it.
 */
abstract class ServerProcess implements AutoCloseable {
  /** Returns the RESP port, 0 if the server has none. */
  abstract int respPort();

  /** Returns the memcached port, 0 if the server has none. */
  abstract int memcachePort();

  /** Returns the event-loop threads of a Larder server, 0 for the other servers. */
  int eventLoops() {
    return 0;
  }

  /** Returns the process id whose resident memory is the server's. */
  abstract long pid();

  /** Returns the resident set size of the server's process, in bytes. */
  long residentBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IOException("no VmRSS for process " + pid());
  }

  /**
   * Returns the CPU time the server's process has used so far, user and system, in clock ticks of
   * 10 ms (Linux's USER_HZ).
   */
  long cpuTicks() throws IOException {
    return parseCpuTicks(Files.readString(Path.of("/proc", Long.toString(pid()), "stat")));
  }

  /** Returns utime plus stime of a /proc/PID/stat line. */
  static long parseCpuTicks(String stat) {
    // The command name is in parentheses and may hold spaces and parentheses: count fields
    // after its last ')'. utime and stime are the line's 14th and 15th fields, so the 12th and
    // 13th after the name.
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ", -1);
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  @Override
  public abstract void close();

  /**
   * @param dir the log's directory, or null for a server in memory only
   * @param appendfsync the log's policy (ignored without a directory)
   */
  static ServerProcess larder(long maxMemory, int ioThreads, Path dir, String appendfsync)
      throws IOException {
    Map<String, String> settings =
        new java.util.HashMap<>(
            Map.of(
                "resp-port",
                "0",
                "memcache-port",
                "0",
                "http-port",
                "-1",
                "maxmemory",
                Long.toString(maxMemory),
                "idle-timeout-seconds",
                "0",
                "max-connections",
                "100000",
                "io-threads",
                Integer.toString(ioThreads)));
    if (dir != null) {
      settings.put("dir", dir.toString());
      settings.put("appendfsync", appendfsync);
    }
    ServerConfig config = ServerConfig.of(settings);
    LarderServer server = LarderServer.start(config);
    return new ServerProcess() {
      @Override
      int eventLoops() {
        return config.ioThreads();
      }

      @Override
      int respPort() {
        return server.respPort();
      }

      @Override
      int memcachePort() {
        return server.memcachePort();
      }

      @Override
      long pid() {
        return ProcessHandle.current().pid();
      }

      @Override
      public void close() {
        server.close();
      }
    };
  }

  /**
   * @param dir the AOF's directory, or null for persistence off
   * @param appendfsync the AOF's policy (ignored without a directory)
   */
  static ServerProcess redis(long maxMemory, Path dir, String appendfsync)
      throws IOException, InterruptedException {
    return redis(maxMemory, dir, appendfsync, FreshPortStart.PortSource.FREE);
  }

  /**
   * Like {@link #redis(long, Path, String)}, on ports from {@code ports}: a port taken between
   * found free and bound moves the server to a fresh one ({@link FreshPortStart}).
   */
  static ServerProcess redis(
      long maxMemory, Path dir, String appendfsync, FreshPortStart.PortSource ports)
      throws IOException, InterruptedException {
    return started(
        "redis-server",
        () -> {
          int port = ports.freePort();
          List<String> command =
              new java.util.ArrayList<>(
                  List.of(
                      "redis-server",
                      "--port",
                      Integer.toString(port),
                      "--bind",
                      "127.0.0.1",
                      "--save",
                      "",
                      "--maxmemory",
                      Long.toString(maxMemory),
                      "--maxmemory-policy",
                      "allkeys-lru",
                      "--protected-mode",
                      "no",
                      "--daemonize",
                      "no"));
          if (dir == null) {
            command.addAll(List.of("--appendonly", "no"));
          } else {
            command.addAll(
                List.of(
                    "--appendonly", "yes", "--appendfsync", appendfsync, "--dir", dir.toString()));
          }
          return child(command, port, 0);
        });
  }

  static ServerProcess memcached(long maxMemory) throws IOException, InterruptedException {
    return memcached(maxMemory, FreshPortStart.PortSource.FREE);
  }

  /**
   * memcached with {@code maxMemory} (in MiB, rounded down), on a port from {@code ports}: a port
   * taken between found free and bound moves it to a fresh one ({@link FreshPortStart}).
   */
  static ServerProcess memcached(long maxMemory, FreshPortStart.PortSource ports)
      throws IOException, InterruptedException {
    return started(
        "memcached",
        () -> {
          int port = ports.freePort();
          return child(
              List.of(
                  "memcached",
                  "-u",
                  "nobody",
                  "-l",
                  "127.0.0.1",
                  "-p",
                  Integer.toString(port),
                  "-U",
                  "0",
                  "-m",
                  Long.toString(maxMemory >> 20),
                  "-c",
                  "4096",
                  "-t",
                  "2"),
              0,
              port);
        });
  }

  /** Runs {@link FreshPortStart#start}, passing on the checked failures a child's start throws. */
  private static ServerProcess started(String what, FreshPortStart.Attempt<ServerProcess> attempt)
      throws IOException, InterruptedException {
    try {
      return FreshPortStart.start(what, attempt);
    } catch (IOException | InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  /**
   * Starts a child server and waits until it answers on its port: PING on RESP, {@code version} on
   * memcached's (an answer, not a connection, so that a stranger listening on a port taken before
   * the child bound it is not taken for the child). Its output goes to a temporary file, deleted
   * when it stops; a child that does not start is stopped, and the failure ends with its output
   * (which says "Address already in use" when its port was taken).
   */
  private static ServerProcess child(List<String> command, int resp, int memcache)
      throws IOException, InterruptedException {
    Path output = Files.createTempFile("larder-bench-" + command.getFirst(), ".out");
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    ServerProcess server =
        new ServerProcess() {
          @Override
          int respPort() {
            return resp;
          }

          @Override
          int memcachePort() {
            return memcache;
          }

          @Override
          long pid() {
            return p.pid();
          }

          @Override
          public void close() {
            LoopbackChild.stop(p);
            deleteQuietly(output);
          }
        };
    try {
      if (resp != 0) {
        LoopbackChild.awaitPong(p, resp, command.getFirst());
      } else {
        LoopbackChild.awaitMemcached(p, memcache, command.getFirst());
      }
    } catch (IOException e) {
      String said = LoopbackChild.tail(output);
      deleteQuietly(output);
      throw new IOException(e.getMessage() + "; its output ends: " + said, e);
    }
    return server;
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // a temporary file left behind is not worth failing a benchmark for
    }
  }
}
