package dev.larder.bench.cluster;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterDegradedException;
import dev.larder.cluster.ClusterException;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.Stacks;
import dev.larder.cluster.internal.tx.ClusterTxEngine;
import dev.larder.tx.Isolation;
import dev.larder.tx.Transaction;
import dev.larder.tx.TransactionConflictException;
import dev.larder.tx.TxStore;
import dev.larder.tx.spi.TxStores;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;

/**
 * One member of the clustered-transaction fault trial, in its own JVM: a clustered store with its
 * log in its own directory, and client threads running {@link TxWorkload} transactions. Every
 * list-append and register transaction is written to a history file before it commits ({@code I id
 * process invokeNanos ops...}) and again when its outcome is known ({@code C id
 * COMMITTED|ABORTED|UNKNOWN completeNanos}), flushed line by line so that a SIGKILL leaves at most
 * a transaction without outcome (unknown). Audits that find a wrong sum write {@code S sum};
 * reconfigurations this member proposed write their cumulative decisions ({@code D commits
 * aborts}).
 *
 * <p>Commands on stdin, one answer line each: {@code ready} (READY and the view's size), {@code
 * describe} (the member's epoch and view), {@code seed}, {@code go} (start the clients), {@code
 * partition NAME...} (drop every message from and to those members), {@code heal}, {@code stop}
 * (stop the clients), {@code dump} (every list), {@code sum}, {@code quit}.
 *
 * <p>Arguments: port, cluster, node name, data directory, history file, nodes, isolation, clients,
 * incarnation number, mode ({@code replicated} or {@code distributed}, see {@link TxClusterMode}).
 */
public final class TxTrialNode {

  private TxTrialNode() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("larder.cluster.port", args[0]);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    int nodes = Integer.parseInt(args[5]);
    Isolation isolation = Isolation.valueOf(args[6]);
    int clients = Integer.parseInt(args[7]);
    int incarnation = Integer.parseInt(args[8]);
    ClusterMode mode = TxClusterMode.parse(args[9]);
    ClusterConfig config =
        ClusterConfig.builder()
            .stack(Stacks.LOOPBACK)
            .clusterName(args[1])
            .nodeName(args[2])
            .timeout(Duration.ofSeconds(5))
            .segments(64)
            .mode(mode)
            .owners(TxClusterMode.owners(nodes))
            .initialClusterSize(1)
            .initialClusterTimeout(Duration.ofSeconds(90))
            .build();
    WalConfig wal =
        WalConfig.of(Path.of(args[3])).withPolicy(FsyncPolicy.interval(Duration.ofMillis(10)));
    ClusterTxEngine engine =
        ClusterTxEngine.start(
            config, TxWorkload.SPECS, isolation, nodes, wal, Duration.ofSeconds(30));
    DISCARD discard = new DISCARD();
    engine
        .channel()
        .getProtocolStack()
        .insertProtocol(discard, ProtocolStack.Position.ABOVE, TP.class);
    try (TxStore store = TxStores.open(TxWorkload.SPECS, engine);
        Writer history =
            Files.newBufferedWriter(
                Path.of(args[4]),
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND)) {
      out.println("ready");
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] w = line.trim().split(" ");
        switch (w[0]) {
          // the epoch's members, not the JGroups view's: they are who votes, and on a loaded
          // host a member's view was seen to stay one view behind the others' for minutes
          // while its epoch was whole
          case "ready" -> out.println((engine.isReady() ? "READY " : "WAIT ") + engine.epochSize());
          // READY or WAIT, the epoch's size and its number: the final dump waits until every
          // member is READY in one epoch
          case "epoch" ->
              out.println(
                  (engine.isReady() ? "READY " : "WAIT ")
                      + engine.epochSize()
                      + " "
                      + engine.epochNumber());
          case "describe" ->
              out.println(engine.describeMember() + ", view " + engine.channel().getView());
          case "seed" -> {
            TxWorkload.seed(store);
            out.println("seeded");
          }
          case "go" -> {
            for (int c = 0; c < clients; c++) {
              int process = incarnation * 100 + c;
              TxWorkload work = new TxWorkload(store, process, ((long) process) << 32);
              Thread t = new Thread(() -> client(work, process, history, stop), "client-" + c);
              t.setDaemon(true);
              t.start();
              threads.add(t);
            }
            Thread d = new Thread(() -> decisions(engine, history, stop), "decisions");
            d.setDaemon(true);
            d.start();
            out.println("going");
          }
          case "partition" -> {
            partition(engine.channel(), discard, List.of(w).subList(1, w.length));
            out.println("partitioned");
          }
          case "heal" -> {
            discard.resetIgnoredMembers();
            out.println("healed");
          }
          case "stop" -> {
            stop.set(true);
            for (Thread t : threads) {
              t.join(30_000);
            }
            write(history, "D " + engine.inDoubtResolved()[0] + " " + engine.inDoubtResolved()[1]);
            out.println("stopped");
          }
          case "dump" -> out.println(TxWorkload.dumpLists(store));
          case "sum" -> {
            long sum = store.inTransaction(tx -> new TxWorkload(store, 0, 0).audit(tx));
            out.println(sum);
          }
          case "quit" -> {
            return;
          }
          default -> out.println("unknown " + line);
        }
      }
    }
  }

  /** Ids of this member's recorded transactions. */
  private static final AtomicInteger IDS = new AtomicInteger();

  /**
   * After a commit refused at once on a minority side: a client there would otherwise spin, filling
   * its history with hundreds of thousands of refusals while the partition lasts.
   */
  private static void pauseIfDegraded(ClusterException e) {
    if (e instanceof ClusterDegradedException) {
      java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
    }
  }

  private static void partition(JChannel channel, DISCARD discard, List<String> names) {
    for (Address a : channel.getView().getMembers()) {
      if (names.contains(a.toString())) {
        discard.addIgnoreMember(a);
      }
    }
  }

  private static void client(TxWorkload work, int process, Writer history, AtomicBoolean stop) {
    long n = 0;
    while (!stop.get()) {
      n++;
      if (n % 20 == 0) {
        audit(work, history);
      } else if (n % 2 == 0) {
        transfer(work);
      } else {
        // unique within this incarnation's history file (the driver numbers the transactions of
        // every file apart): a number made of the incarnation, the client and n ran into the
        // next client's when a client ran more than 50,000 transactions (a member on the
        // minority side, refused at once), and the parsed history then lost transactions
        recorded(work, process, IDS.incrementAndGet(), history);
      }
    }
  }

  private static void transfer(TxWorkload work) {
    try (Transaction tx = work.store().begin()) {
      work.transfer(tx);
      tx.commit();
    } catch (TransactionConflictException e) {
      // a refused transfer moves nothing
    } catch (ClusterException e) {
      // a refused or in-doubt transfer moves all of its amount or none: the sum shows which
      pauseIfDegraded(e);
    }
  }

  private static void audit(TxWorkload work, Writer history) {
    try (Transaction tx = work.store().begin()) {
      long sum = work.audit(tx);
      if (sum != TxWorkload.ACCOUNT_COUNT * TxWorkload.INITIAL_BALANCE) {
        write(history, "S " + sum);
      }
    } catch (TransactionConflictException e) {
      // a conflict: no sum
    } catch (ClusterException e) {
      // a read that waited too long for an in-doubt transaction: no sum
      pauseIfDegraded(e);
    }
  }

  private static void recorded(TxWorkload work, int process, int id, Writer history) {
    String outcome;
    try (Transaction tx = work.store().begin()) {
      long invoke = nanos();
      List<String> ops = work.appendsAndRegisters(tx);
      write(history, "I " + id + " " + process + " " + invoke + " " + String.join(" ", ops));
      tx.commit();
      outcome = "COMMITTED";
    } catch (TransactionConflictException e) {
      outcome = "ABORTED";
    } catch (ClusterException e) {
      outcome = "UNKNOWN";
      pauseIfDegraded(e);
    } catch (IllegalStateException e) {
      outcome = "UNKNOWN";
    }
    write(history, "C " + id + " " + outcome + " " + nanos());
  }

  private static void decisions(ClusterTxEngine engine, Writer history, AtomicBoolean stop) {
    long[] last = {0, 0};
    while (!stop.get()) {
      long[] now = engine.inDoubtResolved();
      if (now[0] != last[0] || now[1] != last[1]) {
        write(history, "D " + now[0] + " " + now[1]);
        last = now;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static long nanos() {
    Instant i = Instant.now();
    return i.getEpochSecond() * 1_000_000_000L + i.getNano();
  }

  private static void write(Writer history, String line) {
    synchronized (history) {
      try {
        history.write(line + "\n");
        history.flush();
      } catch (IOException e) {
        throw new IllegalStateException("cannot write the history", e);
      }
    }
  }
}
