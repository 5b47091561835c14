package dev.larder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three, then four, JVMs on the loopback stack: one is killed with SIGKILL, the survivors restore
 * two copies of every entry, and a new JVM receives its share. Child JVMs are started and stopped
 * by the test, on 127.0.0.1 only, with bounded waits.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class MultiJvmTest {

  private final List<Child> children = new ArrayList<>();
  // 10000-18999: below larder-server's test ports (20000-31999, a share per fork) and Linux's
  // ephemeral range (32768-60999), so a child of this test that outlived it takes no port another
  // module's test was handed, and no outgoing connection takes this one (a member's stack binds
  // the port and the few above it).
  private final String port = String.valueOf(10_000 + ThreadLocalRandom.current().nextInt(9_000));
  private final String cluster = "jvm-test-" + ProcessHandle.current().pid();

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
  }

  private Child start(String name, String mode) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java,
                "-Xmx256m",
                "-Djava.net.preferIPv4Stack=true",
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                ChildNode.class.getName(),
                port,
                cluster,
                name,
                mode)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    Child c = new Child(p);
    children.add(c);
    assertEquals("ready", c.next());
    return c;
  }

  private static void awaitMembers(Child c, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!c.ask("members").equals(String.valueOf(n))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the cluster did not reach " + n + " members");
      }
      Thread.sleep(100);
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
        c.process.destroyForcibly();
        c.process.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void distributedSurvivesAKilledJvmAndFeedsANewOne() throws Exception {
    Child a = start("a", "DISTRIBUTED");
    Child b = start("b", "DISTRIBUTED");
    Child c = start("c", "DISTRIBUTED");
    awaitMembers(a, 3);
    awaitMembers(c, 3);
    assertEquals("true", b.ask("rebalanced"));
    assertEquals("true", c.ask("rebalanced"));
    assertEquals("ok", a.ask("fill 300 k"));
    assertEquals("300", b.ask("check 300 k"));

    b.process.destroyForcibly(); // SIGKILL
    b.process.waitFor(10, TimeUnit.SECONDS);
    awaitMembers(a, 2);
    awaitMembers(c, 2);
    assertEquals("true", a.ask("rebalanced"));
    assertEquals("true", c.ask("rebalanced"));
    assertEquals("300", c.ask("check 300 k"));
    assertEquals("300", a.ask("check 300 k"));

    Child d = start("d", "DISTRIBUTED");
    awaitMembers(d, 3);
    assertEquals("true", d.ask("rebalanced"));
    assertEquals("300", d.ask("check 300 k"));
  }
}
