package dev.larder.server.internal.persist;

import dev.larder.server.internal.keyspace.ChangeSink;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The keyspace's {@link ChangeSink} in front of the log: gathers each thread's changes into groups
 * and hands every finished group on as one record's changes.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Each thread has a group (a thread local): the keyspace opens it around each change and around
 * each exclusive section; changes reported inside it are kept, evictions apart, and the outermost
 * {@link #end()} hands them on, the evictions last (they are conditional, so their place in the
 * record cannot remove a newer value). A change reported outside any group (an eviction on a thread
 * that is not writing) is handed on alone. The lists are reused by their thread: the consumer must
 * be done with them (the log copies a record's bytes) when it returns.
 *
 * <p>Thread-safe: a thread touches only its own group.
 */
final class ChangeGroups implements ChangeSink {
  private final ThreadLocal<Group> groups = ThreadLocal.withInitial(Group::new);
  private final Consumer<List<ChangeRecord.Change>> records;
  private final Runnable awaitDurable;

  /**
   * @param records appends one group's changes as one record
   * @param awaitDurable waits until every record appended so far may be acknowledged
   */
  ChangeGroups(Consumer<List<ChangeRecord.Change>> records, Runnable awaitDurable) {
    this.records = records;
    this.awaitDurable = awaitDurable;
  }

  @Override
  public void begin() {
    groups.get().depth++;
  }

  @Override
  public void end() {
    Group g = groups.get();
    if (--g.depth > 0 || (g.changes.isEmpty() && g.evictions.isEmpty())) {
      return;
    }
    try {
      g.changes.addAll(g.evictions);
      records.accept(g.changes);
    } finally {
      g.changes.clear();
      g.evictions.clear();
    }
  }

  @Override
  public void put(byte[] storedKey, byte[] storedValue) {
    add(new ChangeRecord.Change(ChangeRecord.PUT, storedKey, storedValue, 0), false);
  }

  @Override
  public void delete(byte[] storedKey) {
    add(new ChangeRecord.Change(ChangeRecord.DELETE, storedKey, null, 0), false);
  }

  @Override
  public void evict(byte[] storedKey, long version) {
    add(new ChangeRecord.Change(ChangeRecord.EVICT, storedKey, null, version), true);
  }

  @Override
  public void flush(int db) {
    add(
        db < 0
            ? new ChangeRecord.Change(ChangeRecord.FLUSH_ALL, null, null, 0)
            : new ChangeRecord.Change(ChangeRecord.FLUSH_DB, null, null, db),
        false);
  }

  @Override
  public void awaitDurable() {
    awaitDurable.run();
  }

  private void add(ChangeRecord.Change c, boolean eviction) {
    Group g = groups.get();
    if (g.depth == 0) {
      records.accept(List.of(c));
    } else if (eviction) {
      g.evictions.add(c);
    } else {
      g.changes.add(c);
    }
  }

  /** A thread's group of changes. */
  private static final class Group {
    int depth;
    final ArrayList<ChangeRecord.Change> changes = new ArrayList<>();
    final ArrayList<ChangeRecord.Change> evictions = new ArrayList<>();
  }
}
