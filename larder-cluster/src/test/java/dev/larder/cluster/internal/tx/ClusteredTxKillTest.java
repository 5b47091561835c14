package dev.larder.cluster.internal.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Members of a clustered store in forked JVMs ({@link TxChildNode}) on the loopback stack, killed
 * with SIGKILL while they commit: the originator alone (its transaction in flight is committed or
 * aborted everywhere, and no key stays locked), then every member at once (restarted from their
 * logs, they hold every acknowledged commit). Child JVMs bind 127.0.0.1 only; every wait is
 * bounded.
 */
@Timeout(value = 400, unit = TimeUnit.SECONDS)
class ClusteredTxKillTest {

  @TempDir Path dir;
  private final List<Child> children = new ArrayList<>();
  // 10000-18999: below larder-server's test ports (20000-31999, a share per fork) and Linux's
  // ephemeral range (32768-60999), so a child of this test that outlived it takes no port another
  // module's test was handed, and no outgoing connection takes this one (a member's stack binds
  // the port and the few above it).
  private final String port = String.valueOf(10_000 + ThreadLocalRandom.current().nextInt(9_000));
  private final String cluster = "tx-kill-" + ProcessHandle.current().pid();

  /** A child JVM and its command line. */
  private static final class Child {
    final Process process;
    final PrintStream in;
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    Child(Process process) {
      this.process = process;
      this.in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String l = r.readLine(); l != null; l = r.readLine()) {
                    lines.add(l);
                  }
                } catch (IOException e) {
                  lines.add("io error " + e);
                }
              });
      reader.setDaemon(true);
      reader.start();
    }

    String ask(String command) throws InterruptedException {
      in.println(command);
      return next();
    }

    String next() throws InterruptedException {
      String l = lines.poll(120, TimeUnit.SECONDS);
      if (l == null) {
        throw new AssertionError("no answer from child " + process.pid());
      }
      return l;
    }

    void kill() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** The mode the members start in (a test may change it before starting any). */
  private String mode = "REPLICATED";

  private Child start(String name) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java,
                "-Xmx256m",
                "-Djava.net.preferIPv4Stack=true",
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-cp",
                System.getProperty("java.class.path"),
                TxChildNode.class.getName(),
                port,
                cluster,
                name,
                dir.resolve("data-" + name).toString(),
                "3",
                mode)
            .redirectError(dir.resolve(name + ".err").toFile())
            .start();
    Child c = new Child(p);
    children.add(c);
    return c;
  }

  /** Starts the named members at once; each answers ready once it installed an epoch. */
  private List<Child> startAll(String... names) throws Exception {
    List<Child> started = new ArrayList<>();
    for (String n : names) {
      started.add(start(n));
    }
    for (Child c : started) {
      assertEquals("ready", c.next(), "a member did not start");
    }
    return started;
  }

  private static void awaitReady(int members, Child... cs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    for (Child c : cs) {
      String last = c.ask("ready");
      while (!last.equals("READY " + members)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("not READY with " + members + " members: " + last);
        }
        Thread.sleep(100);
        last = c.ask("ready");
      }
    }
  }

  @AfterEach
  void stopChildren() throws InterruptedException {
    for (Child c : children) {
      c.in.println("quit");
      c.in.close();
    }
    for (Child c : children) {
      if (!c.process.waitFor(10, TimeUnit.SECONDS)) {
        c.kill();
      }
    }
  }

  /** Values a writer's file names as acknowledged (K) and as attempted (A). */
  private record Logged(Set<String> acked, Set<String> attempted) {}

  private static Logged logged(Path file) throws IOException {
    Logged l = new Logged(new HashSet<>(), new HashSet<>());
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String[] w = line.split(" ", -1);
      if (w.length == 2) {
        (w[0].equals("K") ? l.acked() : l.attempted()).add(w[1]);
      }
    }
    return l;
  }

  /** Waits (at most 120 s) until the writer's file names {@code n} acknowledged commits. */
  private static void awaitAcked(Path file, int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!Files.exists(file) || logged(file).acked().size() < n) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("fewer than " + n + " commits acknowledged in 120 s");
      }
      Thread.sleep(50);
    }
  }

  private static Set<String> list(Child c, String key) throws InterruptedException {
    String read = c.ask("read " + key);
    return read.isEmpty() ? Set.of() : new HashSet<>(Arrays.asList(read.split(",")));
  }

  @Test
  void anOriginatorKilledWhileCommittingLeavesNoHalfCommitAndNoLock() throws Exception {
    List<Child> cs = startAll("a", "b", "c");
    awaitReady(3, cs.toArray(Child[]::new));
    Path log = dir.resolve("writer-a");
    assertEquals("writing", cs.get(0).ask("write x " + log + " a"));
    awaitAcked(log, 20); // the writer commits continuously: the kill lands mid-commit or close
    cs.get(0).kill();
    awaitReady(2, cs.get(1), cs.get(2));
    Logged a = logged(log);
    Set<String> onB = list(cs.get(1), "x");
    Set<String> onC = list(cs.get(2), "x");
    assertEquals(onB, onC, "the survivors disagree");
    assertTrue(onB.containsAll(a.acked()), "acknowledged appends lost: " + diff(a.acked(), onB));
    assertTrue(
        a.attempted().containsAll(onB), "values never attempted: " + diff(onB, a.attempted()));
    assertEquals("ok", cs.get(1).ask("append x after-kill"), "the key stayed locked");
  }

  @Test
  void everyMemberKilledAtOnceKeepsEveryAcknowledgedCommit() throws Exception {
    List<Child> cs = startAll("a", "b", "c");
    awaitReady(3, cs.toArray(Child[]::new));
    String[] names = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
      assertEquals(
          "writing",
          cs.get(i)
              .ask(
                  "write x" + names[i] + " " + dir.resolve("writer-" + names[i]) + " " + names[i]));
    }
    for (String n : names) {
      awaitAcked(dir.resolve("writer-" + n), 20);
    }
    for (Child c : cs) {
      c.kill();
    }
    List<Child> again = startAll("a", "b", "c");
    awaitReady(3, again.toArray(Child[]::new));
    for (String n : names) {
      Logged logs = logged(dir.resolve("writer-" + n));
      Set<String> first = list(again.get(0), "x" + n);
      for (Child c : again) {
        Set<String> read = list(c, "x" + n);
        assertEquals(first, read, "members disagree on x" + n);
        assertTrue(
            read.containsAll(logs.acked()),
            "acknowledged appends lost: " + diff(logs.acked(), read));
      }
    }
  }

  /**
   * DISTRIBUTED (two owners of three): a member SIGKILLed while every member commits (the other two
   * adopt the segments it shared with them), then the other two SIGKILLed, and all three restarted
   * from their logs, which stopped at different epochs (the first adopts from the others): every
   * member reads every acknowledged append.
   */
  @Test
  void aDistributedStoreKeepsEveryAcknowledgedCommitThroughKills() throws Exception {
    mode = "DISTRIBUTED";
    String[] names = {"a", "b", "c"};
    List<Child> cs = startAll(names);
    awaitReady(3, cs.toArray(Child[]::new));
    for (int i = 0; i < 3; i++) {
      Path log = dir.resolve("writer-" + names[i] + "-1");
      assertEquals("writing", cs.get(i).ask("write x" + names[i] + " " + log + " " + names[i]));
    }
    for (String n : names) {
      awaitAcked(dir.resolve("writer-" + n + "-1"), 10);
    }
    cs.get(0).kill();
    awaitReady(2, cs.get(1), cs.get(2));
    awaitAcked(dir.resolve("writer-b-1"), logged(dir.resolve("writer-b-1")).acked().size() + 5);
    cs.get(1).kill();
    cs.get(2).kill();
    List<Child> again = startAll(names);
    awaitReady(3, again.toArray(Child[]::new));
    checkAcked(again, names, 1);
  }

  /** Every member reads, at each writer's key, every append its writers' files acknowledged. */
  private void checkAcked(List<Child> cs, String[] names, int incarnations) throws Exception {
    for (String n : names) {
      Set<String> acked = new HashSet<>();
      for (int i = 1; i <= incarnations; i++) {
        Path file = dir.resolve("writer-" + n + "-" + i);
        if (Files.exists(file)) {
          acked.addAll(logged(file).acked());
        }
      }
      Set<String> first = list(cs.getFirst(), "x" + n);
      for (Child c : cs) {
        Set<String> read = list(c, "x" + n);
        assertEquals(first, read, "members disagree on x" + n);
        assertTrue(read.containsAll(acked), "acknowledged appends lost: " + diff(acked, read));
      }
    }
  }

  private static Set<String> diff(Set<String> a, Set<String> b) {
    Set<String> d = new HashSet<>(a);
    d.removeAll(b);
    return d;
  }
}
