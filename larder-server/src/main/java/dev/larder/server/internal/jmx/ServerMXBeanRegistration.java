package dev.larder.server.internal.jmx;

import dev.larder.server.LarderServerMXBean;
import dev.larder.server.internal.ServerState;
import dev.larder.server.internal.keyspace.Keyspace;
import java.lang.management.ManagementFactory;
import java.util.concurrent.locks.Lock;
import java.util.function.IntSupplier;
import java.util.function.ToLongFunction;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A server's {@link LarderServerMXBean} on the platform MBean server: registered under the first
 * free name of {@code "larder-server"}, {@code "larder-server-2"}, ... and unregistered by {@link
 * #close()}.
 *
 * <p>Implementation notes: keyspace figures are read under the keyspace's shared lock, as every
 * command reads it, because {@code CONFIG SET maxmemory} swaps the keyspace's cache under the
 * exclusive one. The server unregisters the bean before it closes the keyspace, so a JMX client
 * never reads a closed cache. Thread-safe.
 */
public final class ServerMXBeanRegistration implements LarderServerMXBean, AutoCloseable {

  /** The name of the first server's bean; further ones add -2, -3... */
  public static final String NAME = "larder-server";

  private final ServerState state;
  private final IntSupplier httpPort;
  private final ObjectName name;

  private ServerMXBeanRegistration(ServerState state, IntSupplier httpPort, ObjectName name) {
    this.state = state;
    this.httpPort = httpPort;
    this.name = name;
  }

  /**
   * Returns the registered bean.
   *
   * @param state the server's state
   * @param httpPort the bound HTTP port, 0 when off
   * @throws IllegalStateException if the MBean server refuses the bean
   */
  public static ServerMXBeanRegistration register(ServerState state, IntSupplier httpPort) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (int n = 1; ; n++) {
      try {
        ObjectName name = objectName(n == 1 ? NAME : NAME + "-" + n);
        ServerMXBeanRegistration bean = new ServerMXBeanRegistration(state, httpPort, name);
        server.registerMBean(bean, name);
        return bean;
      } catch (InstanceAlreadyExistsException taken) {
        // another server in this JVM has that name: try the next
      } catch (JMException e) {
        throw new IllegalStateException("jmx: cannot register the server's MXBean: " + e, e);
      }
    }
  }

  /**
   * Returns {@code dev.larder:type=Server,name="<name>"}.
   *
   * @param name a bean's name, e.g. {@value #NAME}
   */
  public static ObjectName objectName(String name) {
    try {
      return new ObjectName("dev.larder:type=Server,name=" + ObjectName.quote(name));
    } catch (javax.management.MalformedObjectNameException e) {
      throw new IllegalArgumentException(e);
    }
  }

  /** Returns the name this bean is registered under. */
  public ObjectName name() {
    return name;
  }

  /** Unregisters the bean; calling it again does nothing. */
  @Override
  public void close() {
    try {
      ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
    } catch (InstanceNotFoundException alreadyGone) {
      // closed before
    } catch (JMException e) {
      throw new IllegalStateException("jmx: cannot unregister " + name + ": " + e, e);
    }
  }

  @Override
  public int getRespPort() {
    return state.respPort();
  }

  @Override
  public int getMemcachePort() {
    return state.memcachePort();
  }

  @Override
  public int getHttpPort() {
    return httpPort.getAsInt();
  }

  @Override
  public int getConnections() {
    return state.connections();
  }

  @Override
  public long getConnectionsReceived() {
    return state.connectionsReceived();
  }

  @Override
  public long getRejectedConnections() {
    return state.rejectedConnections();
  }

  @Override
  public long getCommandsProcessed() {
    return state.commandsProcessed();
  }

  @Override
  public long getKeys() {
    return keyspace(
        k -> {
          long keys = 0;
          for (long[] db : k.counts()) {
            keys += db[0];
          }
          return keys;
        });
  }

  @Override
  public long getMemoryUsed() {
    return keyspace(Keyspace::memoryUsed);
  }

  @Override
  public long getMaxMemory() {
    return keyspace(Keyspace::maxMemory);
  }

  @Override
  public String getMaxMemoryPolicy() {
    return state.maxMemoryPolicy();
  }

  @Override
  public long getKeyspaceHits() {
    return state.keyspace().stats()[0];
  }

  @Override
  public long getKeyspaceMisses() {
    return state.keyspace().stats()[1];
  }

  @Override
  public long getExpiredKeys() {
    return state.keyspace().stats()[2];
  }

  @Override
  public long getEvictedKeys() {
    return state.keyspace().stats()[3];
  }

  @Override
  public long getUptimeSeconds() {
    return (System.currentTimeMillis() - state.startMillis()) / 1000;
  }

  private long keyspace(ToLongFunction<Keyspace> figure) {
    Lock lock = state.keyspace().shared();
    lock.lock();
    try {
      return figure.applyAsLong(state.keyspace());
    } finally {
      lock.unlock();
    }
  }
}
