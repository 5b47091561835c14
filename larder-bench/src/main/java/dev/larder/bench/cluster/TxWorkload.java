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

  /**
   * Elements after which a list is retired and its slot's appends go to the next list ({@code
   * k3.0}, then {@code k3.1}, ...). A list read records the whole list, so unbounded lists made the
   * history grow with the square of the trial's length (a full trial wrote gigabytes and its check
   * ran out of heap); retired lists keep every read short. Clients move on independently when they
   * see a list at the cap, so a list may end a little above it.
   */
  static final int LIST_CAP = 200;

  private final TxStore store;
  private final TxCache<String, Long> accounts;
  private final TxCache<String, String> lists;
  private final TxCache<String, Long> registers;
  private final Random random;
  private final long valueBase;
  private final int[] generation = new int[KEYS];
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
      int slot = random.nextInt(KEYS);
      String key = "k" + slot;
      switch (random.nextInt(4)) {
        case 0 -> {
          String listKey = listKey(slot);
          String list = tx.get(lists, listKey);
          ops.add("r:" + listKey + ":" + (list == null ? "" : list));
          retireIfFull(slot, list);
        }
        case 1 -> {
          long v = valueBase + nextValue++;
          String listKey = listKey(slot);
          String old = tx.get(lists, listKey);
          if (retireIfFull(slot, old)) {
            listKey = listKey(slot);
            old = tx.get(lists, listKey);
          }
          tx.put(lists, listKey, old == null || old.isEmpty() ? Long.toString(v) : old + "," + v);
          ops.add("a:" + listKey + ":" + v);
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

  private String listKey(int slot) {
    return listKey(slot, generation[slot]);
  }

  private static String listKey(int slot, int generation) {
    return "k" + slot + "." + generation;
  }

  /** Moves {@code slot} on to its next list if {@code list} (read from its current one) is full. */
  private boolean retireIfFull(int slot, String list) {
    if (list == null || elements(list) < LIST_CAP) {
      return false;
    }
    generation[slot]++;
    return true;
  }

  private static int elements(String list) {
    if (list.isEmpty()) {
      return 0;
    }
    int n = 1;
    for (int i = 0; i < list.length(); i++) {
      n += list.charAt(i) == ',' ? 1 : 0;
    }
    return n;
  }

  /**
   * Returns every list, as {@code key=v1,v2} tokens, read in one transaction: each slot's lists
   * from its first until the first absent one (a slot moves to its next list only once the one
   * before holds {@link #LIST_CAP} elements, so none is skipped).
   */
  static String dumpLists(TxStore store) {
    TxCache<String, String> l = store.cache(LISTS);
    return store.inTransaction(
        tx -> {
          StringBuilder sb = new StringBuilder();
          for (int i = 0; i < KEYS; i++) {
            for (int g = 0; ; g++) {
              String key = listKey(i, g);
              String v = tx.get(l, key);
              if (v == null) {
                break;
              }
              sb.append(sb.isEmpty() ? "" : " ").append(key).append("=").append(v);
            }
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
