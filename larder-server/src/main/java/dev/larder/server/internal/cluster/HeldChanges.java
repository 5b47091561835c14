package dev.larder.server.internal.cluster;

import dev.larder.server.internal.keyspace.KeyObserver;
import dev.larder.server.internal.pubsub.KeyEvents;
import java.util.ArrayList;
import java.util.List;

/**
 * The keyspace's observer on a server whose EXEC commits through cluster transactions: passes every
 * change on at once, except on a thread running an EXEC attempt ({@link #hold}), whose changes are
 * kept until the attempt commits ({@link #release}: told then, each queued command's in a scope of
 * its own, so its keyspace notifications are named after it) or are dropped (it is run again, or
 * fails). So blocked clients, tracking clients and notification subscribers hear of a transaction's
 * writes once, after they are committed.
 *
 * <p>Thread-safe: a hold belongs to the thread that took it.
 */
final class HeldChanges implements KeyObserver {

  private volatile KeyObserver target = KeyObserver.NONE;
  private volatile KeyEvents events;

  /** The calling thread's hold: the kept calls, per queued command; null when it holds nothing. */
  private static final ThreadLocal<Hold> HELD = new ThreadLocal<>();

  /** One thread's hold, on one observer (several servers may share a JVM). */
  private record Hold(HeldChanges owner, List<Segment> segments) {}

  /** One call to the observer, kept. */
  @SuppressWarnings("ArrayRecordComponent") // never compared; passed on uncopied
  private record Call(Kind kind, byte[] storedKey, int how, int db, String naming) {}

  private enum Kind {
    CHANGED,
    EXPIRED,
    EVICTED,
    FLUSHED
  }

  /** The calls one queued command made; command is null for calls outside any queued command. */
  private record Segment(long client, String command, String group, List<Call> calls) {}

  /**
   * Sets where changes go.
   *
   * @param target the keyspace's fan-out (blocked clients, notifications, tracking)
   * @param keyEvents the scopes a released command's changes are told in
   */
  void attach(KeyObserver target, KeyEvents keyEvents) {
    this.target = target;
    this.events = keyEvents;
  }

  /** The calling thread starts an EXEC attempt: its changes are kept from now on. */
  void hold() {
    List<Segment> segments = new ArrayList<>();
    segments.add(new Segment(0, null, null, new ArrayList<>()));
    HELD.set(new Hold(this, segments));
  }

  /** The calling thread's attempt runs its next queued command (does nothing without a hold). */
  void command(long client, String name, String group) {
    List<Segment> segments = segments();
    if (segments != null) {
      segments.add(new Segment(client, name, group, new ArrayList<>()));
    }
  }

  /** The calling thread's attempt was rolled back: its changes are forgotten. */
  void drop() {
    if (segments() != null) {
      HELD.remove();
    }
  }

  /** Returns the calling thread's kept calls on this observer, or null if it holds none. */
  private List<Segment> segments() {
    Hold h = HELD.get();
    return h == null || h.owner() != this ? null : h.segments();
  }

  /** The calling thread's attempt committed: its changes are told now, in order. */
  void release() {
    List<Segment> segments = segments();
    if (segments == null) {
      return;
    }
    HELD.remove();
    for (Segment s : segments) {
      if (s.calls().isEmpty()) {
        continue;
      }
      KeyEvents scopes = events;
      if (s.command() == null || scopes == null) {
        s.calls().forEach(this::tell);
        continue;
      }
      Object scope = scopes.begin(s.client(), s.command(), s.group());
      try {
        s.calls().forEach(this::tell);
      } finally {
        scopes.end(scope);
      }
    }
  }

  private void tell(Call c) {
    switch (c.kind()) {
      case CHANGED -> {
        String before = KeyEvents.nameEvents(c.naming());
        try {
          target.changed(c.storedKey(), c.how());
        } finally {
          KeyEvents.nameEvents(before);
        }
      }
      case EXPIRED -> target.expired(c.storedKey());
      case EVICTED -> target.evicted(c.storedKey());
      case FLUSHED -> target.flushed(c.db());
    }
  }

  /** Keeps the call if the calling thread holds; returns false if it must be told now. */
  private boolean keep(Kind kind, byte[] storedKey, int how, int db) {
    List<Segment> segments = segments();
    if (segments == null) {
      return false;
    }
    String naming = null;
    if (kind == Kind.CHANGED) {
      // the event name the running command set (BLPOP's pops name theirs): read without changing it
      naming = KeyEvents.nameEvents(null);
      KeyEvents.nameEvents(naming);
    }
    segments.getLast().calls().add(new Call(kind, storedKey, how, db, naming));
    return true;
  }

  @Override
  public boolean wantsCreations() {
    return target.wantsCreations();
  }

  @Override
  public void changed(byte[] storedKey, int how) {
    if (!keep(Kind.CHANGED, storedKey, how, 0)) {
      target.changed(storedKey, how);
    }
  }

  @Override
  public void expired(byte[] storedKey) {
    if (!keep(Kind.EXPIRED, storedKey, 0, 0)) {
      target.expired(storedKey);
    }
  }

  @Override
  public void evicted(byte[] storedKey) {
    if (!keep(Kind.EVICTED, storedKey, 0, 0)) {
      target.evicted(storedKey);
    }
  }

  @Override
  public void flushed(int db) {
    if (!keep(Kind.FLUSHED, null, 0, db)) {
      target.flushed(db);
    }
  }
}
