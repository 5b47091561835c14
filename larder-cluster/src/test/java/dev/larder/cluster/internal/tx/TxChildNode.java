package dev.larder.cluster.internal.tx;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.Stacks;
import dev.larder.codec.Codecs;
import dev.larder.tx.Isolation;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import dev.larder.tx.spi.TxStores;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A member of a clustered store in its own JVM, for {@link ClusteredTxKillTest}: its log in its own
 * directory (fsync interval 5 ms). Commands, one answer line each: {@code ready}, {@code write KEY
 * FILE PREFIX} (a background writer appends {@code PREFIX-n} to the list at KEY, one transaction
 * each, writing {@code A value} to FILE before each commit and {@code K value} after it is
 * acknowledged, flushed), {@code stop}, {@code read KEY}, {@code append KEY VALUE} (one append,
 * answering its outcome), {@code quit}. Arguments: port, cluster, node name, data directory,
 * members, and optionally the mode ({@code DISTRIBUTED}: two owners; default REPLICATED).
 */
public final class TxChildNode {

  static final TxCacheSpec<String, String> LISTS =
      TxCacheSpec.of("lists", Codecs.strings(), Codecs.strings());

  private TxChildNode() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("larder.cluster.port", args[0]);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    ClusterConfig config =
        ClusterConfig.builder()
            .stack(Stacks.LOOPBACK)
            .clusterName(args[1])
            .nodeName(args[2])
            .timeout(Duration.ofSeconds(5))
            .segments(64)
            .mode(args.length > 5 ? ClusterMode.valueOf(args[5]) : ClusterMode.REPLICATED)
            .owners(2)
            .initialClusterTimeout(Duration.ofSeconds(90))
            .build();
    WalConfig wal =
        WalConfig.of(Path.of(args[3])).withPolicy(FsyncPolicy.interval(Duration.ofMillis(5)));
    ClusterTxEngine engine =
        ClusterTxEngine.start(
            config,
            List.of(LISTS),
            Isolation.SERIALIZABLE,
            Integer.parseInt(args[4]),
            wal,
            Duration.ofSeconds(2));
    AtomicBoolean stop = new AtomicBoolean();
    Thread writer = null;
    try (TxStore store = TxStores.open(List.of(LISTS), engine)) {
      TxCache<String, String> lists = store.cache(LISTS);
      out.println("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] w = line.trim().split(" ", -1);
        switch (w[0]) {
          case "ready" ->
              out.println((engine.isReady() ? "READY " : "WAIT ") + engine.members().size());
          case "write" -> {
            writer = new Thread(() -> write(store, lists, w[1], Path.of(w[2]), w[3], stop));
            writer.setDaemon(true);
            writer.start();
            out.println("writing");
          }
          case "stop" -> {
            stop.set(true);
            if (writer != null) {
              writer.join(30_000);
            }
            out.println("stopped");
          }
          case "read" -> {
            String read =
                store.inTransaction(
                    tx -> {
                      String v = tx.get(lists, w[1]);
                      return v == null ? "" : v;
                    });
            out.println(read);
          }
          case "append" -> {
            try {
              append(store, lists, w[1], w[2]);
              out.println("ok");
            } catch (RuntimeException e) {
              out.println("failed " + e);
            }
          }
          case "quit" -> {
            return;
          }
          default -> out.println("unknown " + line);
        }
      }
    }
  }

  private static void append(
      TxStore store, TxCache<String, String> lists, String key, String value) {
    store.inTransaction(
        tx -> {
          String old = tx.get(lists, key);
          tx.put(lists, key, old == null || old.isEmpty() ? value : old + "," + value);
          return null;
        });
  }

  private static void write(
      TxStore store,
      TxCache<String, String> lists,
      String key,
      Path file,
      String prefix,
      AtomicBoolean stop) {
    try (Writer log =
        Files.newBufferedWriter(
            file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
      for (long n = 0; !stop.get(); n++) {
        String value = prefix + "-" + n;
        log.write("A " + value + "\n");
        log.flush();
        try {
          append(store, lists, key, value);
        } catch (RuntimeException e) {
          continue; // not acknowledged
        }
        log.write("K " + value + "\n");
        log.flush();
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
