package dev.larder.model;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A content node as a node cache holds it: its aspects and its properties. Property values
 * are Integer, Long, Float, Double, Boolean, String, {@link java.util.Date},
 * {@link java.util.Locale}, {@link QName}, {@link NodeRef}, {@link ContentData}, or null.
 *
 * <p>The collections are held as given (the generator and the codecs use a {@code HashSet} and
 * a {@code HashMap}, as a repository's data layer returns them); equality is by content.
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
