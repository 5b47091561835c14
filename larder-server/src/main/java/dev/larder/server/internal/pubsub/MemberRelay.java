package dev.larder.server.internal.pubsub;

import java.util.List;

/**
 * What a clustered member tells the other members of its cluster about pub/sub and client-side
 * caching, and what it knows of theirs: PUBLISH reaches every member's subscribers, and a change
 * made here invalidates what tracking clients of other members read. A standalone server's relay is
 * {@link #NONE}.
 *
 * <p>Thread-safe. Every method but {@link #tracking} returns without waiting for other members.
 */
public interface MemberRelay {
  /** The relay of a server that serves alone: nothing to tell, nobody else tracks. */
  MemberRelay NONE =
      new MemberRelay() {
        @Override
        public void published(byte[] channel, byte[] message) {}

        @Override
        public void changed(List<byte[]> keys) {}

        @Override
        public void flushed() {}

        @Override
        public boolean othersTrack() {
          return false;
        }

        @Override
        public void tracking() {}
      };

  /**
   * PUBLISH ran on this member: the other members deliver the message to their own subscribers.
   * Called in the order this member delivered the channel's messages.
   *
   * @param channel the channel
   * @param message the message
   */
  void published(byte[] channel, byte[] message);

  /**
   * Keys changed on this member (written, removed, expired, evicted): the other members invalidate
   * them for their tracking clients. Called after the change was applied.
   *
   * @param keys the keys' names
   */
  void changed(List<byte[]> keys);

  /**
   * Every key changed on this member (FLUSHALL, FLUSHDB): the other members flush their clients.
   */
  void flushed();

  /**
   * Returns whether another member may have a tracking client, so that this member's changes must
   * be told to it. True for a member not yet heard from.
   */
  boolean othersTrack();

  /**
   * This member has a tracking client: returns once every other member knows it (at once if they
   * already do), so that any change they apply after a read the client makes from now on is told.
   *
   * @throws RuntimeException a cluster failure, if a member neither answered nor left in time
   */
  void tracking();
}
