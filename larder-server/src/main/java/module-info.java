/**
 * Larder's network server: RESP2/RESP3 and memcached text and meta protocols over a byte-bounded
 * Larder keyspace, on Netty, with larder-http's console, metrics and REST mounted on an HTTP port.
 * The API is {@link dev.larder.server.LarderServer}, {@link dev.larder.server.ServerConfig} and
 * {@link dev.larder.server.ServerSetting}; protocols, keyspace and networking live in {@code
 * dev.larder.server.internal}.
 */
module dev.larder.server {
  requires dev.larder.core;
  requires transitive dev.larder.cluster;
  requires dev.larder.http;
  requires dev.larder.wal;
  requires io.netty.buffer;
  requires io.netty.codec;
  requires io.netty.codec.http;
  requires io.netty.common;
  requires io.netty.handler;
  requires io.netty.transport;
  requires io.netty.transport.classes.epoll;
  requires io.netty.transport.unix.common;
  requires info.picocli;
  requires java.management;
  requires jdk.management;
  requires micrometer.core;

  exports dev.larder.server;

  opens dev.larder.server to
      info.picocli;
}
