package dev.larder.bench.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.wal.FsyncPolicy;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The short crash trials CI runs: 20 SIGKILLs of a committing child JVM under {@code always}. */
@Timeout(300)
class CrashTrialsTest {

  @TempDir Path dir;

  @Test
  void noAcknowledgedCommitIsLostAndNoneIsPartialAfterSigkill() throws Exception {
    CrashTrials.Result r =
        new CrashTrials(dir, FsyncPolicy.always(), 4, 22).run(20, 400, line -> {});
    assertEquals(0, r.childFailures().size(), r.childFailures().toString());
    assertTrue(r.acknowledged() > 20, "children committed too little: " + r);
    assertEquals(0, r.lost(), r.toString());
    assertEquals(0, r.partial(), r.toString());
  }
}
