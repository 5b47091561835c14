package dev.larder.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.cluster.MemberMessages;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.util.NameCache;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The members a view tells the receiver have left: every member of the previous view that is not in
 * this one, by incarnation, so that a member that crashed and came back under its name between two
 * views of this member counts as one that left (its messages since the previous view may be lost).
 */
class MemberMessagingTest {

  private static Address member(String name) {
    Address a = UUID.randomUUID();
    NameCache.add(a, name);
    return a;
  }

  private static Membership.ViewChange view(long id, Address... members) {
    View v = View.create(members[0], id, members);
    return new Membership.ViewChange(
        new Topology(id, v, null, null, id - 1, Set.of(members)), List.of(), false);
  }

  @Test
  void aMemberBackUnderItsNameInTheNextViewHasLeft() {
    List<List<String>> left = new ArrayList<>();
    MemberMessaging messaging = new MemberMessaging(null, null);
    messaging.onMessages(
        new MemberMessages() {
          @Override
          public void received(String member, byte[] payload) {}

          @Override
          public void viewChanged(List<String> members, List<String> gone, boolean merge) {
            left.add(gone);
          }
        });
    Address a = member("mm-a");
    Address b = member("mm-b");
    Address c = member("mm-c");
    messaging.onView(view(1, a, b, c));
    messaging.onView(view(2, a, c));
    Address b2 = member("mm-b");
    messaging.onView(view(3, a, c, b2));
    Address c2 = member("mm-c");
    messaging.onView(view(4, a, b2, c2));
    assertEquals(List.of(List.of(), List.of("mm-b"), List.of(), List.of("mm-c")), left);
  }
}
