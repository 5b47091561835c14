package dev.larder.model;

import java.io.Serializable;
import java.util.Objects;

/**
 * A qualified name: a namespace URI and a local name, as content repositories name types, aspects
 * and properties.
 *
 * @param namespaceUri the namespace URI, never null (may be empty)
 * @param localName the local name, never null
 */
public record QName(String namespaceUri, String localName) implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Checks the components. */
  public QName {
    Objects.requireNonNull(namespaceUri, "namespaceUri");
    Objects.requireNonNull(localName, "localName");
  }

  /** Returns the name in the {@code {namespace}local} form. */
  @Override
  public String toString() {
    return "{" + namespaceUri + "}" + localName;
  }
}
