package dev.larder.cluster.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jgroups.Address;
import org.jgroups.util.ExtendedUUID;

/**
 * A member's attributes ({@link dev.larder.cluster.ClusterConfig#attributes()}), carried in its
 * JGroups address (an {@link ExtendedUUID}) under one key, so every view tells every member what
 * the others joined with. Stateless.
 *
 * <pre>
 *   u16 count, then count times: UTF key, UTF value   (DataOutput's modified UTF-8)
 * </pre>
 */
final class MemberAttributes {

  /** The ExtendedUUID key the attributes travel under. */
  static final String KEY = "larder.attributes";

  private MemberAttributes() {}

  static byte[] encode(Map<String, String> attributes) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeShort(attributes.size());
      for (Map.Entry<String, String> e : attributes.entrySet()) {
        out.writeUTF(e.getKey());
        out.writeUTF(e.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** Returns the attributes a member joined with; empty if none or unreadable. */
  static Map<String, String> of(Address member) {
    if (!(member instanceof ExtendedUUID u) || u.get(KEY) == null) {
      return Map.of();
    }
    Map<String, String> out = new LinkedHashMap<>();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(u.get(KEY)))) {
      int n = in.readUnsignedShort();
      for (int i = 0; i < n; i++) {
        out.put(in.readUTF(), in.readUTF());
      }
    } catch (IOException e) {
      return Map.of();
    }
    return out;
  }
}
