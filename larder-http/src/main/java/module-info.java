/**
 * Larder's HTTP endpoints: Prometheus text at {@code /metrics}, JSON at {@code /api/caches}, REST
 * on entries, and the web console at {@code /}, on Netty. The API is {@link
 * dev.larder.http.LarderHttpServer} (standalone or sharing event loops), {@link
 * dev.larder.http.LarderHttpChannelInitializer} (to mount on another Netty server), {@link
 * dev.larder.http.CacheDirectory} with {@link dev.larder.http.ServedCache} and {@link
 * dev.larder.http.CacheFigures}, {@link dev.larder.http.LarderHttpConfig} and the key and value
 * formats; routes and handlers live in {@code dev.larder.http.internal}.
 */
@SuppressWarnings("requires-transitive-automatic")
module dev.larder.http {
  requires transitive dev.larder.core;
  requires transitive io.netty.transport;
  requires io.netty.buffer;
  requires io.netty.codec;
  requires io.netty.codec.http;
  requires io.netty.common;
  requires io.netty.handler;
  requires transitive micrometer.registry.prometheus;
  requires micrometer.core;
  requires com.fasterxml.jackson.databind;

  exports dev.larder.http;

  // Jackson writes the report records by reflection.
  opens dev.larder.http.internal to
      com.fasterxml.jackson.databind;
}
