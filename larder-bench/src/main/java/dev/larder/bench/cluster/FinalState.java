package dev.larder.bench.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;

/**
 * The end check of {@link ServerClusterTxTrial}: every member reads every account and every
 * client's log list in one MULTI, and the read is checked against the clients' records: the sum,
 * the balances the committed transfers (the records found) make, acknowledged transfers missing,
 * records found twice, and records of transfers whose client was told nothing was applied.
 *
 * <p>A commit acknowledged through one member is read through another at that member's snapshot,
 * whose clock may lag the commit's timestamp for a moment, so a member whose read does not check
 * out is read again, for up to 10 s, before what it shows is counted. Stateless.
 */
final class FinalState {

  /**
   * What the reads found, summed over members.
   *
   * @param sumViolations members whose balances do not sum to the constant
   * @param halfApplied members whose balances differ from the committed records'
   * @param lost acknowledged transfers missing
   * @param duplicated records found twice
   * @param abortedButApplied records of transfers answered with a conflict or CLUSTERDOWN
   * @param detail what was found, empty if every count is 0
   */
  record Check(
      long sumViolations,
      long halfApplied,
      long lost,
      long duplicated,
      long abortedButApplied,
      String detail) {

    boolean clean() {
      return sumViolations + halfApplied + lost + duplicated + abortedButApplied == 0;
    }
  }

  private FinalState() {}

  /** Reads and checks the state through every member (at {@code respPorts}). */
  static Check check(int[] respPorts, List<BankClient> clients) throws InterruptedException {
    long sums = 0;
    long half = 0;
    long lost = 0;
    long duplicated = 0;
    long aborted = 0;
    StringBuilder detail = new StringBuilder();
    for (int m = 0; m < respPorts.length; m++) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      Check c = readAndCheck(respPorts[m], clients, deadline);
      while (!c.clean() && System.nanoTime() < deadline) {
        Thread.sleep(100);
        c = readAndCheck(respPorts[m], clients, deadline);
      }
      sums += c.sumViolations();
      half += c.halfApplied();
      lost += c.lost();
      duplicated += c.duplicated();
      aborted += c.abortedButApplied();
      if (!c.clean()) {
        detail.append("m").append(m).append(": ").append(c.detail()).append("; ");
      }
    }
    return new Check(sums, half, lost, duplicated, aborted, detail.toString());
  }

  /** Reads and checks one member, retrying a read that fails until the deadline. */
  private static Check readAndCheck(int port, List<BankClient> clients, long deadline)
      throws InterruptedException {
    while (true) {
      try {
        return checkMember(port, clients);
      } catch (RuntimeException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the final read through port " + port + " failed", e);
        }
        Thread.sleep(100);
      }
    }
  }

  private static Check checkMember(int port, List<BankClient> clients) {
    List<Response<String>> balances = new ArrayList<>();
    List<Response<List<String>>> logs = new ArrayList<>();
    try (Jedis j = new Jedis("127.0.0.1", port, 30_000)) {
      Transaction t = j.multi();
      for (int i = 0; i < BankClient.ACCOUNTS; i++) {
        balances.add(t.get(BankClient.account(i)));
      }
      for (BankClient c : clients) {
        logs.add(t.lrange(BankClient.log(c.id), 0, -1));
      }
      t.exec();
    }
    long[] read = new long[BankClient.ACCOUNTS];
    long[] made = new long[BankClient.ACCOUNTS];
    long sum = 0;
    for (int i = 0; i < read.length; i++) {
      String v = balances.get(i).get();
      read[i] = v == null ? 0 : Long.parseLong(v);
      made[i] = BankClient.INITIAL_BALANCE;
      sum += read[i];
    }
    long lost = 0;
    long duplicated = 0;
    long aborted = 0;
    StringBuilder detail = new StringBuilder();
    for (int c = 0; c < clients.size(); c++) {
      BankClient client = clients.get(c);
      Set<Long> found = new HashSet<>();
      for (String record : logs.get(c).get()) {
        String[] f = record.split(":", -1);
        long seq = Long.parseLong(f[0]);
        if (!found.add(seq)) {
          duplicated++;
          detail.append(client.id).append(" record ").append(seq).append(" twice, ");
          continue;
        }
        long amount = Long.parseLong(f[3]);
        made[Integer.parseInt(f[1])] -= amount;
        made[Integer.parseInt(f[2])] += amount;
        if (client.aborted.contains(seq) || client.refused.contains(seq)) {
          aborted++;
          detail.append(client.id).append(" record ").append(seq).append(" was refused, ");
        }
      }
      for (long seq : client.acknowledged) {
        if (!found.contains(seq)) {
          lost++;
          if (lost <= 5) {
            detail.append(client.id).append(" acknowledged ").append(seq).append(" missing, ");
          }
        }
      }
    }
    long half = Arrays.equals(read, made) ? 0 : 1;
    if (half > 0) {
      detail
          .append("balances ")
          .append(Arrays.toString(read))
          .append(", the records make ")
          .append(Arrays.toString(made));
    }
    return new Check(
        sum == BankClient.TOTAL ? 0 : 1, half, lost, duplicated, aborted, detail.toString());
  }
}
