package dev.larder.bench.peer;

/** Thrown when a peer cannot do what a scenario asks (for example, evict); the message says why. */
public final class PeerUnavailableException extends Exception {

  private static final long serialVersionUID = 1L;

  /**
   * @param reason why the peer cannot run the scenario
   */
  public PeerUnavailableException(String reason) {
    super(reason);
  }
}
