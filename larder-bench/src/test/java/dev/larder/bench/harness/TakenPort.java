package dev.larder.bench.harness;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * A port found free and then taken, as another process takes one between a starter's choice and its
 * server's bind: a listening socket that never accepts (so a connection to it succeeds and is never
 * answered), and a {@link FreshPortStart.PortSource} that hands that port out first, then free
 * ports. Closing releases the port.
 */
public final class TakenPort implements FreshPortStart.PortSource, AutoCloseable {
  private final ServerSocket held;
  private int handedOut;

  /** Takes a free port below the ephemeral range. */
  public TakenPort() throws IOException {
    held = new ServerSocket();
    held.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), LoopbackChild.freePort()));
  }

  /** Returns the port held. */
  public int port() {
    return held.getLocalPort();
  }

  /** Returns how many times the held port was handed out (once at most). */
  public synchronized int handedOut() {
    return handedOut;
  }

  @Override
  public synchronized int freePortWith(int offset) throws IOException {
    if (handedOut == 0) {
      handedOut++;
      return port();
    }
    return LoopbackChild.freePortWith(offset);
  }

  @Override
  public void close() throws IOException {
    held.close();
  }
}
