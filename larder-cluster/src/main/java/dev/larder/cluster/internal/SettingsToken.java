package dev.larder.cluster.internal;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterException;
import dev.larder.cluster.ClusterMode;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Objects;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.auth.AuthToken;
import org.jgroups.protocols.AUTH;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.Bits;

/**
 * A member's cluster settings, carried on its join and merge requests through JGroups' AUTH
 * protocol, so that the coordinator refuses a member whose settings differ from its own. Members
 * that disagree on the mode, the owners (distributed mode), the segments, the replication, the
 * expiry or the value dictionary's spaces would place keys on different owners, or read each
 * other's values in another layout, and lose or garble writes without a word; refused at the door,
 * the joiner's {@code build()} fails saying so, and two partitions that disagree do not merge.
 *
 * <p>Only requests are checked ({@code auth_coord} off): a coordinator without this token (a stack
 * of the user's own with another AUTH) answers as before. Key and value codecs are not compared (a
 * codec is code, not a setting).
 *
 * <p>JGroups makes tokens by reflection when it reads a header, hence the public no-argument
 * constructor. Immutable once read; thread-safe.
 */
public final class SettingsToken extends AuthToken {
  private static final System.Logger LOG = System.getLogger(SettingsToken.class.getName());

  private String settings = "";

  /** For JGroups, which reads the settings into it from a request's header. */
  public SettingsToken() {}

  SettingsToken(String settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /**
   * Returns the settings every member of a cluster must share, as one line; the wire version first
   * (members of another version refuse each other's frames anyway).
   */
  static String describe(ClusterConfig config, EngineHooks hooks) {
    // owners place keys only in distributed mode; elsewhere every member holds everything
    String owners = config.mode() == ClusterMode.DISTRIBUTED ? ", owners " + config.owners() : "";
    return "wire "
        + Frame.VERSION
        + ", mode "
        + config.mode()
        + owners
        + ", segments "
        + config.segments()
        + (config.partitioner() == null ? "" : " by " + config.partitioner().id())
        + ", replication "
        + config.replication()
        + ", partitions "
        + config.partitionHandling()
        + ", expireAfterWrite "
        + hooks.ttlMillis()
        + " ms, dictionary spaces "
        + (hooks.dictionary() == null
            ? "none"
            : hooks.dictionary().spaces().stream().sorted().toList());
  }

  /**
   * Puts an AUTH protocol carrying {@code settings} right below GMS, before the channel connects. A
   * stack that has an AUTH of its own keeps it, without this check (logged).
   *
   * @throws ClusterException if the stack has no GMS
   */
  public static void install(JChannel channel, String settings) {
    ProtocolStack stack = channel.getProtocolStack();
    if (stack.findProtocol(AUTH.class) != null) {
      LOG.log(
          System.Logger.Level.WARNING,
          "the JGroups stack has its own AUTH, so members"
              + " whose cluster settings differ are not refused at join");
      return;
    }
    AUTH auth = new AUTH().setAuthCoord(false);
    SettingsToken token = new SettingsToken(settings);
    token.setAuth(auth);
    auth.setAuthToken(token);
    try {
      stack.insertProtocol(auth, ProtocolStack.Position.BELOW, GMS.class);
    } catch (Exception e) {
      throw new ClusterException(
          "cannot add the settings check below GMS in the JGroups" + " stack: " + e, e);
    }
  }

  @Override
  public String getName() {
    return getClass().getName();
  }

  @Override
  public int size() {
    return Bits.size(settings);
  }

  /** On the coordinator: is the requester's token this one's settings? */
  @Override
  public boolean authenticate(AuthToken token, Message msg) {
    if (token instanceof SettingsToken other && settings.equals(other.settings)) {
      return true;
    }
    String theirs = token instanceof SettingsToken other ? other.settings : String.valueOf(token);
    LOG.log(
        System.Logger.Level.WARNING,
        "refused "
            + msg.getSrc()
            + ": its cluster settings ["
            + theirs
            + "] differ from this member's ["
            + settings
            + "]");
    return false;
  }

  @Override
  public void writeTo(DataOutput out) throws IOException {
    Bits.writeString(settings, out);
  }

  @Override
  public void readFrom(DataInput in) throws IOException {
    String read = Bits.readString(in);
    settings = read == null ? "" : read;
  }

  @Override
  public String toString() {
    return "SettingsToken[" + settings + "]";
  }
}
