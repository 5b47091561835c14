package dev.larder.server.internal.pubsub;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The tracking table around a flush (FLUSHALL here or on another member, a member leaving the
 * cluster's view, a merge): a client that reads a key as soon as it is told to drop everything is
 * told when that key changes next.
 */
class TrackingTest {
  private static final byte[] KEY = "lv:a".getBytes(StandardCharsets.UTF_8);

  private static final Tracking.Mode DEFAULT =
      new Tracking.Mode(false, false, false, false, 0, List.of());

  /**
   * A RESP3 client that records what it is sent and reacts to it on the sending thread, which is
   * the worst interleaving a real client's next read can have: its read is registered before the
   * sender has returned.
   */
  private static final class Client implements Subscriber {
    final List<PushMessage> received = new ArrayList<>();
    Consumer<PushMessage> onMessage = m -> {};

    @Override
    public long id() {
      return 7;
    }

    @Override
    public boolean deliver(PushMessage message) {
      received.add(message);
      onMessage.accept(message);
      return true;
    }

    @Override
    public int protocol() {
      return 3;
    }

    @Override
    public boolean subscribedTo(byte[] channel) {
      return false;
    }
  }

  /** Runs {@code flush} while the client reads KEY again the moment it is told to drop all. */
  private static void assertAReadAfterTheFlushIsTracked(
      Tracking tracking, Client c, Runnable flush, Runnable change) {
    tracking.connected(c);
    tracking.on(c, DEFAULT);
    tracking.remember(c.id(), KEY);
    c.onMessage =
        m -> {
          if (m instanceof PushMessage.Invalidation i && i.keys() == null) {
            tracking.remember(c.id(), KEY);
          }
        };
    flush.run();
    assertEquals(1, c.received.size(), "the flush told the client once");
    assertNull(((PushMessage.Invalidation) c.received.getFirst()).keys());
    assertEquals(1, tracking.keys(), "the read after the flush is in the table");
    c.onMessage = m -> {};
    change.run();
    assertEquals(2, c.received.size(), "the change after that read was told: " + c.received);
    assertTrue(c.received.get(1) instanceof PushMessage.Invalidation);
    assertArrayEquals(new byte[][] {KEY}, ((PushMessage.Invalidation) c.received.get(1)).keys());
  }

  @Test
  void aKeyReadRightAfterAnotherMembersFlushIsToldOfItsNextChange() {
    Tracking tracking = new Tracking(0);
    Client c = new Client();
    assertAReadAfterTheFlushIsTracked(
        tracking,
        c,
        tracking::flushedOnAnotherMember,
        () -> tracking.changedOnAnotherMember(List.of(KEY)));
  }

  @Test
  void aKeyReadRightAfterAFlushHereIsToldOfItsNextChange() {
    Tracking tracking = new Tracking(0);
    Client c = new Client();
    assertAReadAfterTheFlushIsTracked(
        tracking, c, tracking::flushed, () -> tracking.changed(KEY, 0));
  }
}
