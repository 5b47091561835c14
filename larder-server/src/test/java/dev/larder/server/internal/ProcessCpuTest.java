package dev.larder.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Reading the process's CPU times from a {@code /proc/<pid>/stat} line. */
class ProcessCpuTest {
  @Test
  void fieldsFourteenToSeventeenInTicks() {
    String line =
        "4242 (java (main) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 89 10 20 0 40 0 7"
            + " 100 200 300";
    ProcessCpu.Times t = ProcessCpu.parse(line);
    assertEquals(12.34, t.user(), 1e-9);
    assertEquals(5.67, t.system(), 1e-9);
    assertEquals(0.89, t.childrenUser(), 1e-9);
    assertEquals(0.10, t.childrenSystem(), 1e-9);
  }

  @Test
  void notAStatLine() {
    assertNull(ProcessCpu.parse("nothing here"));
    assertNull(ProcessCpu.parse("1 (x) S 1 2"));
  }

  @Test
  void thisProcessOnLinux() {
    if (System.getProperty("os.name").startsWith("Linux")) {
      ProcessCpu.Times t = ProcessCpu.read();
      assertNotNull(t);
      assertTrue(t.user() + t.system() > 0, "a JVM that ran tests used some CPU");
    }
  }
}
