package dev.larder.server.internal.pubsub;

/**
 * What the server sends a RESP client without its asking: a pub/sub message, or a client-side
 * caching notice. The client's session chooses the wire form (RESP2 array or RESP3 push) when it
 * writes one.
 */
public sealed interface PushMessage {
  /** Bytes of the framing around the payloads, for the estimate of a message's size. */
  int FRAMING = 64;

  /** Returns an estimate of the encoded size, counted against the client's output limit. */
  long bytes();

  /**
   * A message published to a channel the client subscribed to.
   *
   * @param channel the channel
   * @param payload the message
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  record Message(byte[] channel, byte[] payload) implements PushMessage {
    @Override
    public long bytes() {
      return FRAMING + (long) channel.length + payload.length;
    }
  }

  /**
   * A message published to a channel matching a pattern the client subscribed to.
   *
   * @param pattern the pattern
   * @param channel the channel
   * @param payload the message
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  record PatternMessage(byte[] pattern, byte[] channel, byte[] payload) implements PushMessage {
    @Override
    public long bytes() {
      return FRAMING + (long) pattern.length + channel.length + payload.length;
    }
  }

  /**
   * Keys a tracking client may have cached have changed (RESP3 {@code invalidate} push, or a
   * message on {@code __redis__:invalidate} to a RESP2 client it redirects to).
   *
   * @param keys the keys, or null for "every key" (a flush)
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  record Invalidation(byte[][] keys) implements PushMessage {
    @Override
    public long bytes() {
      long n = FRAMING;
      if (keys != null) {
        for (byte[] k : keys) {
          n += k.length + 16;
        }
      }
      return n;
    }
  }

  /**
   * The client a tracking client redirects to has gone: RESP3's {@code tracking-redir-broken}.
   *
   * @param redirect the id of the client that went
   */
  record RedirectBroken(long redirect) implements PushMessage {
    @Override
    public long bytes() {
      return FRAMING;
    }
  }
}
