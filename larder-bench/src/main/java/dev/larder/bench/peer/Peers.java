package dev.larder.bench.peer;

import dev.larder.Storage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The implementations the benchmarks compare, by name. */
public final class Peers {

  private static final List<Peer> PEERS =
      List.of(
          new LarderPeer(Storage.OFF_HEAP),
          new LarderPeer(Storage.HEAP),
          new ConcurrentHashMapPeer(),
          new CaffeinePeer(),
          new EhcachePeer(false),
          new EhcachePeer(true),
          new InfinispanPeer(false),
          new InfinispanPeer(true),
          new ChronicleMapPeer(),
          new OhcPeer());

  private Peers() {}

  /** Returns every implementation, in table order. */
  public static List<Peer> all() {
    return PEERS;
  }

  /** Returns every peer's name. */
  public static List<String> names() {
    List<String> names = new ArrayList<>();
    PEERS.forEach(p -> names.add(p.name()));
    return names;
  }

  /**
   * Returns the peer, if known.
   *
   * @param name a peer's name
   */
  public static Optional<Peer> named(String name) {
    return PEERS.stream().filter(p -> p.name().equals(name)).findFirst();
  }
}
