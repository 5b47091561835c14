package dev.larder.model;

import java.io.Serializable;
import java.util.Objects;

/**
 * A reference to a node: its store and its id, a UUID in its canonical text form as repositories
 * keep it (any other string is allowed too).
 *
 * @param storeRef the store
 * @param id the node's id within the store
 */
public record NodeRef(StoreRef storeRef, String id) implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Checks the components. */
  public NodeRef {
    Objects.requireNonNull(storeRef, "storeRef");
    Objects.requireNonNull(id, "id");
  }

  @Override
  public String toString() {
    return storeRef + "/" + id;
  }
}
