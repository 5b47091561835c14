package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.larder.server.LarderServer;
import dev.larder.testing.HeldMessages;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.jgroups.JChannel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A SYNC write on its key's primary is answered once its backup acknowledged it, without its
 * connection's event loop waiting: two members (replicated, SYNC), one event loop each, and the
 * backup made slow by holding back the primary's messages to it ({@link HeldMessages}). Another
 * connection of the same loop is served meanwhile; the write's connection runs nothing more until
 * the write is acknowledged, so a pipeline's replies stay in request order.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterDeferredRepliesTest {
  /** Long enough that no write here times out, however loaded the host. */
  private static final int CLUSTER_TIMEOUT_MILLIS = 120_000;

  private static LoopbackCluster cluster;
  private HeldMessages backup;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        new LoopbackCluster(
            2,
            "cluster-command-threads",
            "1",
            "cluster-timeout",
            Integer.toString(CLUSTER_TIMEOUT_MILLIS));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  /** Member 1 holds member 0's messages when told to: the backup of member 0's keys is slow. */
  @BeforeEach
  void slowBackup() {
    JChannel primary = LoopbackCluster.channel(cluster.member(0));
    JChannel backupChannel = LoopbackCluster.channel(cluster.member(1));
    backup = new HeldMessages(primary.getAddress());
    backupChannel.getProtocolStack().insertProtocolAtTop(backup);
  }

  @AfterEach
  void restoreBackup() {
    backup.release();
    LoopbackCluster.channel(cluster.member(1)).getProtocolStack().removeProtocol(backup);
  }

  /** Returns a key of database 0 whose primary is member {@code m} (and not of the others). */
  private static String keyOwnedBy(int m, String prefix) {
    for (int i = 0; ; i++) {
      String key = prefix + i;
      byte[] k = key.getBytes(StandardCharsets.UTF_8);
      byte[] stored = new byte[k.length + 1];
      System.arraycopy(k, 0, stored, 1, k.length);
      if (LoopbackCluster.store(cluster.member(m)).isLocalPrimary(stored)) {
        return key;
      }
    }
  }

  private static int port(int m) {
    return cluster.member(m).respPort();
  }

  @Test
  void aSetWaitingForItsBackupHoldsUpNoOtherConnectionOfItsLoop() {
    String key = keyOwnedBy(0, "slow:");
    LarderServer primary = cluster.member(0);
    try (RespSocket writer = new RespSocket(primary.respPort(), 30_000);
        RespSocket reader = new RespSocket(primary.respPort(), 30_000)) {
      assertEquals("OK", writer.call("SET", key, "before"));
      backup.hold();
      writer.send("SET", key, "after");
      LoopbackCluster.await(() -> backup.held() > 0, "the backup holds the write");
      // one event loop serves both connections: the waiting SET must not stop it
      assertEquals("PONG", reader.call("PING"));
      assertEquals("after", reader.call("GET", key), "applied on the primary already");
      assertNull(reader.call("GET", keyOwnedBy(0, "absent:")));
      assertFalse(writer.hasInput(), "the SET is not answered before its backup holds it");
      backup.release();
      assertEquals("OK", writer.read());
    }
    try (RespSocket other = new RespSocket(port(1), 30_000)) {
      assertEquals("after", other.call("GET", key));
    }
  }

  @Test
  void aPipelineOfSetsAndGetsIsAnsweredInRequestOrder() {
    String mine = keyOwnedBy(0, "order:");
    String theirs = keyOwnedBy(1, "order:");
    try (RespSocket c = new RespSocket(port(0), 30_000)) {
      backup.hold();
      int rounds = 20;
      for (int i = 0; i < rounds; i++) {
        // a deferred SET (this member is the primary), a forwarded one, and reads of both
        c.send("SET", mine, "m" + i);
        c.send("GET", mine);
        c.send("SET", theirs, "t" + i);
        c.send("GET", theirs);
      }
      LoopbackCluster.await(() -> backup.held() > 0, "the backup holds the first write");
      assertFalse(c.hasInput(), "nothing is answered before the first SET is acknowledged");
      backup.release();
      for (int i = 0; i < rounds; i++) {
        assertEquals("OK", c.read(), "SET " + i);
        assertEquals("m" + i, c.read(), "GET after SET " + i);
        assertEquals("OK", c.read(), "forwarded SET " + i);
        assertEquals("t" + i, c.read(), "GET after forwarded SET " + i);
      }
      assertFalse(c.hasInput());
    }
  }

  @Test
  void aConnectionClosedWhileItsSetWaitsLeavesTheServerServing() {
    String key = keyOwnedBy(0, "closed:");
    try (RespSocket writer = new RespSocket(port(0), 30_000)) {
      backup.hold();
      writer.send("SET", key, "v");
      LoopbackCluster.await(() -> backup.held() > 0, "the backup holds the write");
    }
    backup.release();
    try (RespSocket c = new RespSocket(port(0), 30_000);
        RespSocket other = new RespSocket(port(1), 30_000)) {
      assertEquals("OK", c.call("SET", key, "w"));
      assertEquals("w", other.call("GET", key));
    }
  }

  @Test
  void aDeferredSetInsideMultiIsAnsweredWithExec() {
    String key = keyOwnedBy(0, "tx:");
    try (RespSocket c = new RespSocket(port(0), 30_000)) {
      assertEquals("OK", c.call("MULTI"));
      assertEquals("QUEUED", c.call("SET", key, "1"));
      assertEquals("QUEUED", c.call("GET", key));
      Object exec = c.call("EXEC");
      assertInstanceOf(java.util.List.class, exec);
      assertEquals(java.util.List.of("OK", "1"), exec);
      assertFalse(c.hasInput());
    }
  }
}
