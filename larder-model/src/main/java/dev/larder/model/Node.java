package dev.larder.model;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A content node as a node cache holds it: its aspects and its properties. Property values are
 * Integer, Long, Float, Double, Boolean, String, {@link java.util.Date}, {@link java.util.Locale},
 * {@link QName}, {@link NodeRef}, {@link ContentData}, or null.
 *
 * <p>The collections are held as given: the generator uses a {@code HashSet} and a {@code HashMap},
 * as a repository's data layer returns them. Nodes decoded by {@link NodeCodecs#node()} and {@link
 * NodeCodecs#node(dev.larder.codec.ValueDictionary)} hold unmodifiable ones (mutators throw {@link
 * UnsupportedOperationException}; with a dictionary they share their names with every node of the
 * same shape) and dates whose setters throw too, so that a decoded node cannot change and a cache
 * may share it between readers ({@code Codec.immutable()}): copy them to change a node. Equality is
 * by content, whatever the implementations.
 *
 * @param aspects the aspects applied to the node
 * @param properties the node's properties by name
 */
public record Node(Set<QName> aspects, Map<QName, Serializable> properties)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Checks the components. */
  public Node {
    Objects.requireNonNull(aspects, "aspects");
    Objects.requireNonNull(properties, "properties");
  }
}
