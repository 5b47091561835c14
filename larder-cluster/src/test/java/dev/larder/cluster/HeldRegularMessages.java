package dev.larder.cluster;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;

/**
 * Test helper: a protocol at the top of a member's stack that, while holding, keeps back the
 * regular (not out-of-band) messages one other member sends it, after JGroups delivered them, and
 * hands them on in their order when released: a primary's writes to a backup that has not
 * acknowledged them yet. Out-of-band messages (requests, replies) and views pass.
 */
final class HeldRegularMessages extends Protocol {
  private final Address from;
  private final List<Message> held = new ArrayList<>();
  private boolean holding;

  /**
   * @param from the member whose regular messages are held
   */
  HeldRegularMessages(Address from) {
    this.from = from;
  }

  synchronized void hold() {
    holding = true;
  }

  synchronized int held() {
    return held.size();
  }

  /** Hands on every held message, in order, and stops holding. */
  synchronized void release() {
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
