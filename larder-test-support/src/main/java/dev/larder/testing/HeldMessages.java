package dev.larder.testing;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;

/**
 * A JGroups protocol for the top of a member's stack that, while holding, keeps back the regular
 * (not out-of-band) messages one other member sends it, after JGroups delivered them in order, and
 * hands them on in that order when released. A primary's writes to its backups are such messages,
 * so a member holding its primary's messages is a backup that has not acknowledged yet; heartbeats,
 * views, requests and replies (out-of-band) pass, so nobody suspects it.
 *
 * <p>Thread-safe. Needs JGroups on the test's class or module path (this module requires it
 * statically: only the cluster's and the server's tests use this class).
 */
public final class HeldMessages extends Protocol {
  private final Address from;
  private final List<Message> held = new ArrayList<>();
  private boolean holding;

  /**
   * @param from the member whose regular messages are held
   */
  public HeldMessages(Address from) {
    this.from = from;
  }

  /** Starts holding. */
  public synchronized void hold() {
    holding = true;
  }

  /** Returns how many messages are held now. */
  public synchronized int held() {
    return held.size();
  }

  /** Hands on every held message, in order, and stops holding. */
  public synchronized void release() {
    for (Message m : held) {
      up_prot.up(m);
    }
    held.clear();
    holding = false;
  }

  private boolean holds(Message m, Address sender) {
    return holding && from.equals(sender) && !m.isFlagSet(Message.Flag.OOB);
  }

  @Override
  public Object up(Message msg) {
    synchronized (this) {
      if (holds(msg, msg.getSrc())) {
        held.add(msg);
        return null;
      }
    }
    return up_prot.up(msg);
  }

  @Override
  public void up(MessageBatch batch) {
    synchronized (this) {
      for (Iterator<Message> it = batch.iterator(); it.hasNext(); ) {
        Message m = it.next();
        if (holds(m, batch.sender())) {
          // handed on alone later: it must name its sender itself, as a single message does
          held.add(m.setSrc(batch.sender()));
          it.remove();
        }
      }
    }
    if (!batch.isEmpty()) {
      up_prot.up(batch);
    }
  }
}
