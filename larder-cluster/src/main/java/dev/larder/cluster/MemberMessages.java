package dev.larder.cluster;

import java.util.List;

/**
 * Receives the messages other members send with {@link ClusteredCache#broadcast} and hears of each
 * view this member installs: a channel between the members of a cluster for an application's own
 * notices (the server's pub/sub and client-side caching invalidations), beside the cache's own
 * protocol and in the same views.
 *
 * <p>Both methods run on JGroups' delivery thread: they must be quick, must not block and must not
 * call the cache. Exceptions they throw are logged and dropped.
 */
public interface MemberMessages {
  /**
   * A message another member broadcast. Messages from one sender arrive in the order it sent them;
   * messages from different senders are not ordered. A message sent in a view whose members this
   * member was not among (before it joined, or on the other side of a partition) never arrives.
   *
   * @param member the sender's name
   * @param payload the bytes it sent (not copied: the receiver may keep them)
   */
  void received(String member, byte[] payload);

  /**
   * This member installed a view.
   *
   * @param members the view's members, coordinator first
   * @param left the members of this member's previous view that are not in this one (every member
   *     whose messages since the previous view may have been lost), by incarnation: a member that
   *     crashed and rejoined under its name between the two views is among both {@code members} and
   *     {@code left}
   * @param merge true if the view merges partitions: members on the other side sent messages this
   *     member never received
   */
  void viewChanged(List<String> members, List<String> left, boolean merge);
}
