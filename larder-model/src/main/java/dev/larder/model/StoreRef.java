package dev.larder.model;

import java.io.Serializable;
import java.util.Objects;

/**
 * A store of a content repository, such as {@code workspace://SpacesStore}.
 *
 * @param protocol the protocol, e.g. {@code workspace}
 * @param identifier the store's identifier, e.g. {@code SpacesStore}
 */
public record StoreRef(String protocol, String identifier) implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Checks the components. */
  public StoreRef {
    Objects.requireNonNull(protocol, "protocol");
    Objects.requireNonNull(identifier, "identifier");
  }

  @Override
  public String toString() {
    return protocol + "://" + identifier;
  }
}
