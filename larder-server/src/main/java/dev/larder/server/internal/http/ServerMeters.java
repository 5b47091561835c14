package dev.larder.server.internal.http;

import dev.larder.server.internal.ServerState;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The server panel's figures as meters of the registry {@code /metrics} scrapes, under {@code
 * larder.server.*}: connections open (a gauge), connections accepted and refused and commands
 * processed (counters, so Prometheus computes the rates), and uptime. The keyspace's memory and
 * bound are already the {@code larder.cache.memory.*} meters of cache {@value
 * HttpMount#CACHE_NAME}. Each meter reads the server's counters when scraped.
 */
final class ServerMeters {

  private ServerMeters() {}

  static void bind(ServerState state, MeterRegistry registry) {
    Gauge.builder("larder.server.connections", state, ServerState::connections)
        .description("client connections open, RESP and memcached")
        .register(registry);
    FunctionCounter.builder(
            "larder.server.connections.received", state, ServerState::connectionsReceived)
        .description("client connections accepted or refused since start")
        .register(registry);
    FunctionCounter.builder(
            "larder.server.connections.rejected", state, ServerState::rejectedConnections)
        .description("client connections refused at max-connections")
        .register(registry);
    FunctionCounter.builder("larder.server.commands", state, ServerState::commandsProcessed)
        .description("RESP and memcached commands processed since start")
        .register(registry);
    Gauge.builder(
            "larder.server.uptime",
            state,
            s -> (System.currentTimeMillis() - s.startMillis()) / 1000.0)
        .baseUnit("seconds")
        .description("time since the server started")
        .register(registry);
  }
}
