package dev.larder.server.internal.pubsub;

import dev.larder.server.internal.keyspace.KeyObserver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The keyspace's observer on a RESP server: every change of a key invalidates it for tracking
 * clients ({@link Tracking}) and, when keyspace notifications are on, becomes the events of the
 * command that made it ({@link CommandEvents}); expired and evicted keys are published as the
 * {@code expired} and {@code evicted} events.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The keyspace reports a change on the thread that made it; the dispatcher brackets each command
 * it runs with {@link #begin} and {@link #end}, which keep the running command (its client and
 * name) in a thread-local scope. Changes are gathered there while the command runs, and turned into
 * events when it ends, in the order they were made, so one command's events are published together
 * and named after the command (Redis's SET with EX publishes {@code set} then {@code expire}).
 * Tracking hears of a command's changed keys when it ends (EXEC's when the transaction ends), so
 * that a broadcast client gets one message per prefix for them, as Redis sends one per prefix and
 * event-loop round. Changes made outside a command (memcached, the HTTP side) invalidate tracked
 * keys but publish no event: keyspace notifications are Redis's, named after Redis commands.
 *
 * <p>Thread-safe.
 */
public final class KeyEvents implements KeyObserver {
  private static final ThreadLocal<Scope> SCOPE = new ThreadLocal<>();

  /** What {@link #begin} returns when nothing needs a scope (no tracking, no events). */
  private static final Object UNSCOPED = new Object();

  private final Tracking tracking;
  private final KeyspaceEvents events;

  /**
   * @param tracking the tracking table
   * @param events the notification settings and publisher
   */
  public KeyEvents(Tracking tracking, KeyspaceEvents events) {
    this.tracking = tracking;
    this.events = events;
  }

  /**
   * A command being run: its client, its name and group, and the changes it made so far.
   *
   * @param client the client's id
   * @param command the command's lower-case name
   * @param group the command's group (string, hash, generic...)
   * @param changes the changes, in order
   * @param changedKeys the names of the keys changed, for tracking: shared by the commands EXEC
   *     runs, and told to {@link Tracking} when the outermost command ends
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  record Scope(
      long client,
      String command,
      String group,
      List<Change> changes,
      List<byte[]> changedKeys,
      String[] naming) {}

  /**
   * One change of one key.
   *
   * @param storedKey the database byte, then the key
   * @param how KeyObserver's flags
   * @param event the event the command named for it ({@link #nameEvents}), or null for the rule
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  record Change(byte[] storedKey, int how, String event) {}

  /**
   * The calling thread runs a command from now until {@link #end}.
   *
   * @param client the client's id
   * @param command the command's name
   * @param group its group
   * @return the scope this thread had before (EXEC runs its queued commands inside its own), for
   *     {@link #end}
   */
  public Object begin(long client, String command, String group) {
    if (tracking.idle() && !events.any()) {
      return UNSCOPED;
    }
    Scope before = SCOPE.get();
    List<byte[]> keys = before == null ? new ArrayList<>(2) : before.changedKeys();
    SCOPE.set(new Scope(client, command, group, new ArrayList<>(2), keys, new String[1]));
    return before;
  }

  /**
   * Names the event that the calling thread's running command publishes for the changes it makes
   * from now on, where Redis names it after what the command did rather than after the command
   * (BLPOP and LMPOP publish {@code lpop} or {@code rpop}, LMOVE a push and a pop): the pops of
   * lists and sorted sets name theirs. Does nothing outside a command's scope.
   *
   * @param event the event's name, or null to go back to the command's rule
   * @return the name in force before, to restore after the change
   */
  public static String nameEvents(String event) {
    Scope scope = SCOPE.get();
    if (scope == null) {
      return null;
    }
    String before = scope.naming()[0];
    scope.naming()[0] = event;
    return before;
  }

  /**
   * The command ended: publishes its events.
   *
   * @param before what {@link #begin} returned
   */
  public void end(Object before) {
    if (before == UNSCOPED) {
      return;
    }
    Scope scope = SCOPE.get();
    SCOPE.set((Scope) before);
    if (scope == null) {
      return;
    }
    if (before == null && !scope.changedKeys().isEmpty()) {
      tracking.changed(scope.changedKeys(), scope.client());
    }
    if (scope.changes().isEmpty()) {
      return;
    }
    List<Change> changes = scope.changes();
    if (CommandEvents.sourceFirst(scope.command())) {
      // RENAME writes the new key before it removes the old one; Redis tells of the source first,
      // but of the destination's making (new) before both, where it adds the key.
      changes = madeFirst(events, changes);
      changes.sort((x, y) -> Integer.compare(y.how() & REMOVED, x.how() & REMOVED));
    } else if (CommandEvents.lastChangeOnly(scope.command())) {
      changes = lastOfEachKey(changes);
    } else if (CommandEvents.pushFirst(scope.command())) {
      // LMOVE pops the source before it pushes; Redis tells of the push first.
      changes = new ArrayList<>(changes);
      changes.sort((x, y) -> Boolean.compare(!CommandEvents.isPush(x), !CommandEvents.isPush(y)));
    }
    for (Change c : changes) {
      CommandEvents.publish(
          events,
          scope.command(),
          scope.group(),
          c.event(),
          c.storedKey()[0],
          Arrays.copyOfRange(c.storedKey(), 1, c.storedKey().length),
          c.how());
    }
  }

  /** A plain SET looks whether its key is new only while the {@code n} class is published. */
  @Override
  public boolean wantsCreations() {
    return events.enabled(KeyspaceEvents.NEW);
  }

  @Override
  public void changed(byte[] storedKey, int how) {
    if (tracking.idle() && !events.any()) {
      return;
    }
    Scope scope = SCOPE.get();
    if (scope == null) {
      tracking.changed(name(storedKey), 0);
    } else if (!tracking.idle()) {
      scope.changedKeys().add(name(storedKey));
    }
    if (scope != null && events.any()) {
      scope.changes().add(new Change(storedKey, how, scope.naming()[0]));
    }
  }

  @Override
  public void expired(byte[] storedKey) {
    if (tracking.idle() && !events.any()) {
      return;
    }
    byte[] key = name(storedKey);
    tracking.changed(key, 0);
    events.notify(KeyspaceEvents.EXPIRED, "expired", storedKey[0], key);
  }

  @Override
  public void evicted(byte[] storedKey) {
    if (tracking.idle() && !events.any()) {
      return;
    }
    byte[] key = name(storedKey);
    tracking.changed(key, 0);
    events.notify(KeyspaceEvents.EVICTED, "evicted", storedKey[0], key);
  }

  @Override
  public void flushed(int db) {
    tracking.flushed();
  }

  /**
   * Publishes the {@code new} events of the changes that made their keys, and returns the changes
   * without that flag (a copy), for a command that publishes its other events out of order.
   */
  private static List<Change> madeFirst(KeyspaceEvents events, List<Change> changes) {
    List<Change> out = new ArrayList<>(changes.size());
    for (Change c : changes) {
      if ((c.how() & CREATED) != 0 && (c.how() & REMOVED) == 0) {
        events.notify(
            KeyspaceEvents.NEW,
            "new",
            c.storedKey()[0],
            Arrays.copyOfRange(c.storedKey(), 1, c.storedKey().length));
      }
      out.add(new Change(c.storedKey(), c.how() & ~CREATED, c.event()));
    }
    return out;
  }

  /** The last change of each key, in the order of those last changes. */
  private static List<Change> lastOfEachKey(List<Change> changes) {
    List<Change> out = new ArrayList<>();
    for (int i = changes.size() - 1; i >= 0; i--) {
      Change c = changes.get(i);
      if (out.stream().noneMatch(o -> Arrays.equals(o.storedKey(), c.storedKey()))) {
        out.addFirst(c);
      }
    }
    return out;
  }

  private static byte[] name(byte[] storedKey) {
    return Arrays.copyOfRange(storedKey, 1, storedKey.length);
  }
}
