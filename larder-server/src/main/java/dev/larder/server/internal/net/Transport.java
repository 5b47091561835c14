package dev.larder.server.internal.net;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.unix.Errors;
import java.io.IOException;
import java.net.BindException;

/**
 * The network transport the listeners use: Netty's native epoll transport on Linux when its library
 * loads, else the JDK's NIO.
 *
 * <p>Why epoll: under redis-benchmark at pipeline 1 most of a request's server time is the kernel's
 * (one read, one write), and NIO adds the JDK selector's work per ready socket (a lookup of its key
 * in a map, the selected-key set) and a copy through a JDK buffer on each write. Netty's epoll
 * transport reads and writes the buffers' memory directly and keeps its state per file descriptor.
 *
 * @param name epoll or nio
 * @param ioHandlers makes the event loops' I/O handlers
 * @param serverChannel the listening channel class
 */
public record Transport(
    String name, IoHandlerFactory ioHandlers, Class<? extends ServerChannel> serverChannel) {

  /**
   * Returns the transport.
   *
   * @param choice auto, epoll or nio
   * @throws IllegalStateException if epoll is asked for and unavailable
   */
  public static Transport of(String choice) {
    return switch (choice) {
      case "nio" -> nio();
      case "epoll" -> {
        if (!Epoll.isAvailable()) {
          throw new IllegalStateException(
              "io-transport epoll is not available here: " + Epoll.unavailabilityCause());
        }
        yield epoll();
      }
      default -> Epoll.isAvailable() ? epoll() : nio();
    };
  }

  /** Linux's errno for "address already in use", which epoll's bind reports as a number. */
  private static final int EADDRINUSE = 98;

  /**
   * Returns whether it says the port is taken: NIO's BindException, or epoll's native error.
   *
   * @param e what a bind threw
   */
  public static boolean addressInUse(IOException e) {
    return e instanceof BindException
        || (e instanceof Errors.NativeIoException n && n.expectedErr() == -EADDRINUSE);
  }

  private static Transport epoll() {
    return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class);
  }

  private static Transport nio() {
    return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class);
  }
}
