package dev.larder.bench.cluster;

import dev.larder.codec.Codecs;
import dev.larder.tx.Transaction;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The transactions of the fault trial, run against a clustered store by one client thread: bank
 * transfers between a fixed set of accounts (their sum never changes), audits that read every
 * account, and list-append and register transactions for the history checker. Not thread-safe: one
 * per client.
 */
final class TxWorkload {

  static final TxCacheSpec<String, Long> ACCOUNTS =
      TxCacheSpec.of("accounts", Codecs.strings(), Codecs.longs());
  static final TxCacheSpec<String, String> LISTS =
      TxCacheSpec.of("lists", Codecs.strings(), Codecs.strings());
  static final TxCacheSpec<String, Long> REGISTERS =
      TxCacheSpec.of("registers", Codecs.strings(), Codecs.longs());
  static final List<TxCacheSpec<?, ?>> SPECS = List.of(ACCOUNTS, LISTS, REGISTERS);

  static final int ACCOUNT_COUNT = 10;
  static final long INITIAL_BALANCE = 100;
  static final int KEYS = 8;

  private final TxStore store;
  private final TxCache<String, Long> accounts;
  private final TxCache<String, String> lists;
  private final TxCache<String, Long> registers;
  private final Random random;
  private final long valueBase;
  private long nextValue;

  /**
   * @param valueBase distinct per client and incarnation, so that appended and written values are
   *     unique in the whole trial
   */
  TxWorkload(TxStore store, long seed, long valueBase) {
    this.store = store;
    this.accounts = store.cache(ACCOUNTS);
    this.lists = store.cache(LISTS);
    this.registers = store.cache(REGISTERS);
    this.random = new Random(seed);
    this.valueBase = valueBase;
  }

  /** Puts the initial balances if the first account is absent (run once, by one member). */
  static void seed(TxStore store) {
    TxCache<String, Long> a = store.cache(ACCOUNTS);
    store.inTransaction(
        tx -> {
          if (tx.get(a, "acct0") == null) {
            for (int i = 0; i < ACCOUNT_COUNT; i++) {
              tx.put(a, "acct" + i, INITIAL_BALANCE);
            }
          }
          return null;
        });
  }

  /** Moves a random amount between two random accounts, inside {@code tx}. */
  void transfer(Transaction tx) {
    String from = "acct" + random.nextInt(ACCOUNT_COUNT);
    String to = "acct" + random.nextInt(ACCOUNT_COUNT);
    if (from.equals(to)) {
      return;
    }
    long amount = 1L + random.nextInt(10);
    tx.put(accounts, from, tx.get(accounts, from) - amount);
    tx.put(accounts, to, tx.get(accounts, to) + amount);
  }

  /** Returns the sum of every account, read in {@code tx}. */
  long audit(Transaction tx) {
    long sum = 0;
    for (int i = 0; i < ACCOUNT_COUNT; i++) {
      Long v = tx.get(accounts, "acct" + i);
      sum += v == null ? 0 : v;
    }
    return sum;
  }

  /**
   * Runs 1 to 4 list-append and register operations inside {@code tx}.
   *
   * @return the operations as history text, one token each: {@code a:k:v} append, {@code r:k:v1,v2}
   *     list read, {@code w:k:v} register write, {@code g:k:v} register read ({@code g:k:nil}
   *     absent)
   */
  List<String> appendsAndRegisters(Transaction tx) {
    List<String> ops = new ArrayList<>();
    int n = 1 + random.nextInt(4);
    for (int i = 0; i < n; i++) {
      String key = "k" + random.nextInt(KEYS);
      switch (random.nextInt(4)) {
        case 0 -> {
          String list = tx.get(lists, key);
          ops.add("r:" + key + ":" + (list == null ? "" : list));
        }
        case 1 -> {
          long v = valueBase + nextValue++;
          String old = tx.get(lists, key);
          tx.put(lists, key, old == null || old.isEmpty() ? Long.toString(v) : old + "," + v);
          ops.add("a:" + key + ":" + v);
        }
        case 2 -> {
          Long v = tx.get(registers, key);
          ops.add("g:" + key + ":" + (v == null ? "nil" : v));
        }
        default -> {
          Long old = tx.get(registers, key);
          long v = valueBase + nextValue++;
          tx.put(registers, key, v);
          ops.add("g:" + key + ":" + (old == null ? "nil" : old));
          ops.add("w:" + key + ":" + v);
        }
      }
    }
    return ops;
  }

  /** Returns every list, as {@code key=v1,v2} tokens, read in one transaction. */
  static String dumpLists(TxStore store) {
    TxCache<String, String> l = store.cache(LISTS);
    return store.inTransaction(
        tx -> {
          StringBuilder sb = new StringBuilder();
          for (int i = 0; i < KEYS; i++) {
            String v = tx.get(l, "k" + i);
            sb.append(i == 0 ? "" : " ")
                .append("k")
                .append(i)
                .append("=")
                .append(v == null ? "" : v);
          }
          return sb.toString();
        });
  }

  Random random() {
    return random;
  }

  TxStore store() {
    return store;
  }
}
