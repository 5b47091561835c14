package dev.larder.server.clients;

import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.internal.ClusteredLarderCache;
import dev.larder.server.LarderServer;
import dev.larder.server.ServerConfig;
import dev.larder.server.internal.net.Transport;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.TP;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.stack.ProtocolStack;

/**
 * Test helper: Larder servers forming one cluster on 127.0.0.1 inside this JVM, each with free
 * RESP, memcached and cluster ports, finding each other through {@code peers}; and partitions made
 * with JGroups' DISCARD inserted above each member's transport.
 */
final class LoopbackCluster implements AutoCloseable {
  private static final AtomicInteger CLUSTERS = new AtomicInteger();
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  final List<LarderServer> members = new ArrayList<>();
  private final List<DISCARD> discards = new ArrayList<>();

  /** Each member's settings as it was started, by index: {@link #restartAll} starts it so again. */
  private final List<Map<String, String>> settingsOf = new ArrayList<>();

  /**
   * @param size members
   * @param settings more settings, name then value, for every member
   */
  LoopbackCluster(int size, String... settings) throws IOException {
    this(size, i -> Map.of(), settings);
  }

  /**
   * @param size members
   * @param perMember settings of member {@code i} alone (e.g. its {@code dir}), applied last
   * @param settings more settings, name then value, for every member
   */
  LoopbackCluster(int size, IntFunction<Map<String, String>> perMember, String... settings)
      throws IOException {
    String name = "server-test-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
    int[] ports = new int[size];
    for (int i = 0; i < size; i++) {
      ports[i] = freeClusterPort(false);
    }
    try {
      for (int i = 0; i < size; i++) {
        Map<String, String> m =
            new HashMap<>(
                Map.of(
                    "resp-port",
                    Integer.toString(freePort()),
                    "memcache-port",
                    "0",
                    "http-port",
                    "-1",
                    "cluster",
                    name,
                    "cluster-port",
                    Integer.toString(ports[i]),
                    "peers",
                    peers(ports),
                    "cluster-command-threads",
                    "8",
                    "cluster-node-name",
                    "m" + i));
        for (int s = 0; s < settings.length; s += 2) {
          m.put(settings[s], settings[s + 1]);
        }
        m.putAll(perMember.apply(i));
        members.add(startMember(m, i, ports));
        settingsOf.add(Map.copyOf(m));
      }
      awaitWhole();
    } catch (IOException | RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  /** The {@code peers} setting naming a cluster port on 127.0.0.1 for each member. */
  static String peers(int[] ports) {
    StringBuilder peers = new StringBuilder();
    for (int i = 0; i < ports.length; i++) {
      peers.append(i == 0 ? "" : ",").append("127.0.0.1[").append(ports[i]).append(']');
    }
    return peers.toString();
  }

  /**
   * Starts member {@code i} with settings {@code m}; if a port it was handed is taken by the time
   * it binds (a socket outside this harness: another process's listener, or an outgoing connection
   * given that port where the machine's ephemeral range reaches below 32000), starts it again on
   * fresh ports, at most 5 times, and updates {@code m} and {@code ports} to what it bound (the
   * members after it are given the new port as a peer; those before it find it through the peers it
   * names).
   */
  private static LarderServer startMember(Map<String, String> m, int i, int[] ports)
      throws IOException {
    boolean ownPorts = m.get("cluster-port").equals(Integer.toString(ports[i]));
    for (int attempt = 1; ; attempt++) {
      try {
        return LarderServer.start(ServerConfig.of(m));
      } catch (IOException | RuntimeException e) {
        if (!ownPorts || attempt == 5 || !causedByBind(e)) {
          throw e;
        }
        System.err.println(
            "LoopbackCluster: m"
                + i
                + " could not bind (attempt "
                + attempt
                + ", ephemeral ports "
                + ephemeralRange()
                + "): "
                + e
                + "; starting it on fresh ports");
        ports[i] = freeClusterPort(false);
        m.put("cluster-port", Integer.toString(ports[i]));
        m.put("resp-port", Integer.toString(freePort()));
        m.put("peers", peers(ports));
      }
    }
  }

  /**
   * Whether a start failed because a port was taken: a listener's bind (the JDK's BindException, or
   * the epoll transport's "Address already in use") or JGroups' "No available port to bind".
   */
  static boolean causedByBind(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if ((t instanceof IOException io && Transport.addressInUse(io))
          || (t.getMessage() != null && t.getMessage().contains("No available port to bind"))) {
        return true;
      }
    }
    return false;
  }

  /** How long a restart tries again to bind the ports its member had a moment before. */
  static final Duration OWN_PORTS_WAIT = Duration.ofSeconds(60);

  /**
   * Starts a member again on the ports it had before (they were announced to the other members and
   * name it in their peers, so no other port will do); if one is still taken (the old listener's
   * socket not yet released, or a connection given the port since), tries again every 250 ms for up
   * to {@link #OWN_PORTS_WAIT}, and then throws the last failure.
   *
   * @param m the member's settings, as at its first start
   */
  static LarderServer startOnOwnPorts(Map<String, String> m) throws IOException {
    return startOnOwnPorts(m, () -> {});
  }

  /**
   * As {@link #startOnOwnPorts(Map)}, running {@code taken} after each start that found a port
   * taken (a test frees the port there).
   */
  static LarderServer startOnOwnPorts(Map<String, String> m, Runnable taken) throws IOException {
    long deadline = System.nanoTime() + OWN_PORTS_WAIT.toNanos();
    for (int attempt = 1; ; attempt++) {
      try {
        return LarderServer.start(ServerConfig.of(m));
      } catch (IOException | RuntimeException e) {
        if (!causedByBind(e) || System.nanoTime() > deadline) {
          throw e;
        }
        taken.run();
        if (attempt == 1) {
          System.err.println(
              "LoopbackCluster: "
                  + m.get("cluster-node-name")
                  + " could not bind its own ports again ("
                  + e
                  + "); trying again for up to "
                  + OWN_PORTS_WAIT.toSeconds()
                  + " s");
        }
        try {
          Thread.sleep(250);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          e.addSuppressed(interrupted);
          throw e;
        }
      }
    }
  }

  /**
   * The machine's ephemeral port range, for a failure message. Read a line at a time: {@code
   * Files.readString} of this procfs file (which reports a size of 0) gave its first byte alone.
   */
  static String ephemeralRange() {
    try (BufferedReader r =
        Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      String line = r.readLine();
      return line == null ? "unknown (empty)" : line.trim().replace('\t', '-');
    } catch (IOException | RuntimeException e) {
      return "unknown (" + e + ")";
    }
  }

  /** Waits until every member sees them all and has finished its rebalance. */
  private void awaitWhole() {
    int size = members.size();
    // under quorum a member is available once a majority confirmed its view (one round trip)
    await(
        () ->
            members.stream()
                .allMatch(m -> store(m).members().size() == size && store(m).available()),
        "every member sees " + size + " and is available");
    for (LarderServer m : members) {
      if (!store(m).awaitRebalanced(Duration.ofSeconds(30))) {
        throw new AssertionError(m.clusterNodeName() + " did not finish its rebalance");
      }
    }
  }

  /**
   * Stops every member, then starts them all again at once with the settings each had (its name,
   * ports and {@code dir}), each waiting for all the others ({@code cluster-size}, so that a
   * durable cluster starts each segment from the newest log of it): a full restart. Returns when
   * every member sees them all and has finished its rebalance. A partition is healed by it (the new
   * members' stacks have no DISCARD).
   */
  void restartAll() throws Exception {
    members.forEach(LarderServer::close);
    members.clear();
    discards.clear();
    List<Callable<LarderServer>> again = new ArrayList<>();
    for (Map<String, String> settings : settingsOf) {
      Map<String, String> m = new HashMap<>(settings);
      m.put("cluster-size", Integer.toString(settingsOf.size()));
      again.add(() -> startOnOwnPorts(m));
    }
    members.addAll(startAtOnce(again));
    awaitWhole();
  }

  /**
   * Runs each of {@code starts} at once (each may wait for the others, as with {@code
   * cluster-size}); returns the servers in order once every one serves. If any fails to start
   * within 120 s, closes those that did and throws the first failure, the others' suppressed in it
   * (the first to fail is often only waiting for one that could not start at all, whose reason must
   * show too).
   *
   * @param starts each starts one member, trying again on a port taken as it sees fit
   */
  static List<LarderServer> startAtOnce(List<Callable<LarderServer>> starts) throws Exception {
    List<LarderServer> started = new ArrayList<>();
    ExecutorService starter = Executors.newFixedThreadPool(starts.size());
    try {
      List<Future<LarderServer>> starting = new ArrayList<>();
      for (Callable<LarderServer> start : starts) {
        starting.add(starter.submit(start));
      }
      Exception failed = null;
      for (Future<LarderServer> f : starting) {
        try {
          started.add(f.get(120, TimeUnit.SECONDS));
        } catch (ExecutionException | TimeoutException e) {
          if (failed == null) {
            failed = e;
          } else {
            failed.addSuppressed(e);
          }
        }
      }
      if (failed != null) {
        throw failed;
      }
      return started;
    } catch (Exception | Error e) {
      started.forEach(LarderServer::close);
      throw e;
    } finally {
      starter.shutdownNow();
    }
  }

  /** At most how many test JVMs of this module run side by side (the pom's forkCount). */
  private static final int FORKS = 3;

  /**
   * Returns a loopback port free now, chosen below Linux's default ephemeral range (32768-60999). A
   * port the kernel hands out for a bind to port 0 is free only until it hands it out again, as the
   * local end of a connection or another listener's port 0: that happened between choosing a
   * member's cluster port here and the member binding it ("the port is in use"). The same holds for
   * a clustered server's RESP port 0, which it chooses before it joins and binds after, so the
   * members are given their RESP ports from here too. A port is handed out once per test JVM. The
   * build runs up to {@value #FORKS} test JVMs side by side ({@code larder.test.fork}, Surefire's
   * fork number, 1-based): each takes its ports from its own share of the range, so that two of
   * them cannot choose the same port in the moment between choosing and binding it.
   */
  static int freePort() throws IOException {
    return claim(new int[] {0}, 0);
  }

  /**
   * Returns a cluster port p for a member, handed out with the ports its JGroups stack binds beside
   * it, so that no RESP port chosen here later can be one of them: the failure detector's listener
   * at p + 200 (the first free of the next {@value #FAILURE_DETECTION_PORTS}), and with
   * transactions the transactional channel's p + 1000 and its failure detector's p + 1200. A RESP
   * port chosen free a moment before the member's failure detector took it was "in use" when the
   * member then bound its clients.
   *
   * @param transactions whether the member runs cluster transactions (a second channel at + 1000)
   */
  static int freeClusterPort(boolean transactions) throws IOException {
    return transactions
        ? claim(new int[] {0, TX_OFFSET}, FAILURE_DETECTION_OFFSET)
        : claim(new int[] {0}, FAILURE_DETECTION_OFFSET);
  }

  /** The transactional channel's port above the cluster port (ClusterStack's port offset). */
  private static final int TX_OFFSET = 1000;

  /** FD_SOCK2's offset in the server's stack (ClusterStack). */
  private static final int FAILURE_DETECTION_OFFSET = 200;

  /** How many ports from its offset FD_SOCK2 tries (JGroups' default port_range). */
  private static final int FAILURE_DETECTION_PORTS = 3;

  /**
   * Claims a base port p in this JVM's share with p + each of {@code bound} free now and handed
   * out, and, if {@code detector} is not 0, each p + bound + detector + k (k below {@value
   * #FAILURE_DETECTION_PORTS}) handed out too (not checked: a port taken there only moves the
   * failure detector to the next).
   */
  private static int claim(int[] bound, int detector) throws IOException {
    int share = 12_000 / FORKS;
    int floor =
        20_000 + Math.floorMod(Integer.getInteger("larder.test.fork", 1) - 1, FORKS) * share;
    int top = bound[bound.length - 1] + (detector == 0 ? 0 : detector + FAILURE_DETECTION_PORTS);
    List<Integer> ports = new ArrayList<>();
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = floor + ThreadLocalRandom.current().nextInt(share - top);
      ports.clear();
      for (int b : bound) {
        ports.add(port + b);
        if (detector != 0) {
          for (int k = 0; k < FAILURE_DETECTION_PORTS; k++) {
            ports.add(port + b + detector + k);
          }
        }
      }
      // claimed before the binds (a set's add is atomic), so two threads cannot both take one
      if (!claimAll(ports)) {
        continue;
      }
      boolean free = true;
      for (int b : bound) {
        free &= bindable(port + b);
      }
      if (free) {
        return port; // ports found taken stay claimed: nothing here could bind them anyway
      }
    }
    throw new IOException(
        "no free loopback port"
            + (bound.length == 1 ? "" : " with a free port " + bound[1] + " above it")
            + " in "
            + floor
            + "-"
            + (floor + share - 1)
            + " after 200 attempts");
  }

  /** Hands out every one of {@code ports}, or none if one was handed out already. */
  private static boolean claimAll(List<Integer> ports) {
    for (int i = 0; i < ports.size(); i++) {
      if (!HANDED_OUT.add(ports.get(i))) {
        for (int k = 0; k < i; k++) {
          HANDED_OUT.remove(ports.get(k));
        }
        return false;
      }
    }
    return true;
  }

  private static boolean bindable(int port) throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (BindException e) {
      return false; // taken by another process
    }
  }

  LarderServer member(int i) {
    return members.get(i);
  }

  static ClusteredCache<byte[], byte[]> store(LarderServer m) {
    return m.clusteredStore().orElseThrow();
  }

  static JChannel channel(LarderServer m) {
    return ((ClusteredLarderCache<?, ?>) store(m)).engine().channel();
  }

  /**
   * Cuts member {@code i} off from the others until {@link #heal}, and waits until both sides have
   * installed views without the other.
   *
   * <p>DISCARD drops every message between the two sides but leaves their sockets open, so of the
   * server's failure detectors only FD_ALL3 would notice, after its 10 s timeout. Rather than wait
   * for that timer, each member's VERIFY_SUSPECT2 is handed the suspicion FD_ALL3 would raise (the
   * members on the other side), and verifies it as it always does: its ARE_YOU_DEAD goes unanswered
   * through the cut for 500 ms, then GMS excludes the suspects. The stack and every timing in it
   * stay the server's; only the wait for FD_ALL3's timer is left out. A suspicion is raised again
   * every 2 s until the split is seen, in case one was verified before the cut took.
   */
  void cutOff(int i) throws Exception {
    cutOff(Set.of(i));
  }

  /**
   * Cuts the members {@code side} off from the others as {@link #cutOff(int)} cuts one, and waits
   * until each side sees only itself and the side holding a majority (if one does) is available.
   * Members cut off and never healed are as good as crashed to the others (their leaving is not
   * announced).
   */
  void cutOff(Set<Integer> side) throws Exception {
    insertDiscards();
    for (int j = 0; j < members.size(); j++) {
      for (int k = 0; k < members.size(); k++) {
        if (side.contains(j) != side.contains(k)) {
          discards.get(j).addIgnoreMember(channel(member(k)).getAddress());
        }
      }
    }
    await(
        () -> {
          for (int j = 0; j < members.size(); j++) {
            int seen = side.contains(j) ? side.size() : members.size() - side.size();
            if (store(member(j)).members().size() != seen) {
              return false;
            }
            if (seen * 2 > members.size() && !store(member(j)).available()) {
              return false; // a majority side counts once its members confirmed its view
            }
          }
          return true;
        },
        () -> "the split: " + views(),
        () -> suspectAcross(side));
  }

  /** Puts a DISCARD above each member's transport, once; it drops nothing until told to. */
  private void insertDiscards() throws Exception {
    if (!discards.isEmpty()) {
      return;
    }
    for (LarderServer m : members) {
      DISCARD d = new DISCARD();
      channel(m).getProtocolStack().insertProtocol(d, ProtocolStack.Position.ABOVE, TP.class);
      discards.add(d);
    }
  }

  /**
   * Cuts the link between members {@code a} and {@code b} alone until {@link #heal}: each still
   * hears every other member, as when a real network fails one path at a time. Waits until neither
   * has the other in its view; which of them the rest keep is JGroups' choice. Each is handed the
   * suspicion of the other that FD_ALL3 would raise after its timeout (as {@link #cutOff(Set)}
   * does), every 2 s until then.
   */
  void cutLink(int a, int b) throws Exception {
    cutLink(a, b, true);
  }

  /**
   * As {@link #cutLink(int, int)}; with {@code bothSuspect} false only {@code a} is handed the
   * suspicion at first, and {@code b} only once every other member has installed a view without
   * {@code b} (as when {@code b}'s failure detection notices the cut later): the other members then
   * keep {@code a}'s view, and {@code b} makes one of its own with the same number.
   */
  void cutLink(int a, int b, boolean bothSuspect) throws Exception {
    insertDiscards();
    Address addressOfA = channel(member(a)).getAddress();
    Address addressOfB = channel(member(b)).getAddress();
    discards.get(a).addIgnoreMember(addressOfB);
    discards.get(b).addIgnoreMember(addressOfA);
    if (!bothSuspect) {
      await(
          () -> {
            for (int j = 0; j < members.size(); j++) {
              if (j != b && channel(member(j)).getView().containsMember(addressOfB)) {
                return false;
              }
            }
            return true;
          },
          () -> "m" + a + "'s view without m" + b + ": " + views(),
          () -> suspect(a, addressOfB));
    }
    await(
        () ->
            !channel(member(a)).getView().containsMember(addressOfB)
                && !channel(member(b)).getView().containsMember(addressOfA),
        () -> "the cut of m" + a + "-m" + b + ": " + views(),
        () -> {
          suspect(a, addressOfB);
          suspect(b, addressOfA);
        });
  }

  /**
   * Waits until members {@code a} and {@code b} share one view, asking MERGE3 to look now and every
   * 2 s (as {@link #heal} does) rather than wait for its check interval.
   */
  void awaitTogether(int a, int b) {
    Address addressOfB = channel(member(b)).getAddress();
    await(
        () ->
            channel(member(a)).getView().equals(channel(member(b)).getView())
                && channel(member(a)).getView().containsMember(addressOfB),
        () -> "m" + a + " and m" + b + " in one view: " + views(),
        this::checkForMerge);
  }

  private void suspect(int j, Address suspect) {
    if (channel(member(j)).getView().containsMember(suspect)) {
      channel(member(j))
          .getProtocolStack()
          .findProtocol(VERIFY_SUSPECT2.class)
          .up(new Event(Event.SUSPECT, List.of(suspect)));
    }
  }

  /**
   * Hands each member's VERIFY_SUSPECT2 the members on the other side of the cut of {@code side}.
   */
  private void suspectAcross(Set<Integer> side) {
    for (int j = 0; j < members.size(); j++) {
      List<Address> otherSide = new ArrayList<>();
      for (int k = 0; k < members.size(); k++) {
        if (side.contains(j) != side.contains(k)) {
          otherSide.add(channel(member(k)).getAddress());
        }
      }
      channel(member(j))
          .getProtocolStack()
          .findProtocol(VERIFY_SUSPECT2.class)
          .up(new Event(Event.SUSPECT, otherSide));
    }
  }

  /**
   * Ends the partition and waits for the merge and its rebalance. MERGE3 would find the two views
   * within its check interval (8 s with the server's 2-5 s) and merge them; it is asked to look now
   * (every member sends its INFO, then the coordinators check), and again every 2 s until every
   * member sees them all: the merge itself is MERGE3's and GMS's, as in the server.
   */
  void heal() {
    discards.forEach(DISCARD::resetIgnoredMembers);
    await(
        () ->
            members.stream()
                .allMatch(m -> store(m).members().size() == members.size() && store(m).available()),
        () -> "the merge: " + views(),
        this::checkForMerge);
    for (LarderServer m : members) {
      store(m).awaitRebalanced(Duration.ofSeconds(30));
    }
  }

  /** Runs MERGE3's INFO round on every member and then its view check on the coordinators. */
  private void checkForMerge() {
    for (LarderServer m : members) {
      channel(m).getProtocolStack().<MERGE3>findProtocol(MERGE3.class).sendInfo();
    }
    try {
      // INFO goes out through an asynchronous discovery round: give it time to arrive
      Thread.sleep(300);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
    for (LarderServer m : members) {
      JChannel c = channel(m);
      if (c.getAddress().equals(c.getView().getCoord())) {
        c.getProtocolStack().<MERGE3>findProtocol(MERGE3.class).checkInconsistencies();
      }
    }
  }

  /** Each member's JGroups view and the cluster's view of it, for a failure message. */
  private String views() {
    return members.stream()
        .map(
            m ->
                m.clusterNodeName()
                    + ": JGroups "
                    + channel(m).getView()
                    + ", cluster "
                    + store(m).members()
                    + ", available "
                    + store(m).available())
        .toList()
        .toString();
  }

  static void await(BooleanSupplier condition, String what) {
    await(condition, () -> what, () -> {});
  }

  /**
   * Waits up to 60 s for a condition, running {@code nudge} first and every 2 s while it does not
   * hold; on timeout says {@code what}, evaluated then.
   */
  static void await(BooleanSupplier condition, Supplier<String> what, Runnable nudge) {
    long start = System.nanoTime();
    long deadline = start + Duration.ofSeconds(60).toNanos();
    long nextNudge = start;
    while (!condition.getAsBoolean()) {
      long now = System.nanoTime();
      if (now > deadline) {
        throw new AssertionError("timed out waiting until " + what.get());
      }
      if (now - nextNudge >= 0) {
        nudge.run();
        nextNudge = now + Duration.ofSeconds(2).toNanos();
        continue;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  @Override
  public void close() {
    for (LarderServer m : members) {
      m.close();
    }
  }
}
