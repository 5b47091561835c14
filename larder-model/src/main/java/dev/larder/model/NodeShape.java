package dev.larder.model;

import java.util.Arrays;

/**
 * The names of a node, in the order its collections iterate: its aspects, then its property
 * names. Nodes of one type share a shape, so the substituting node codec writes a shape as one
 * dictionary id instead of a name per property.
 *
 * <p>Immutable (the arrays are never handed out to be changed), so instances may be shared
 * between threads through plain fields. The hash is computed once: the dictionary looks shapes
 * up by it on every encode.
 */
final class NodeShape {

  private final QName[] aspects;
  private final QName[] names;
  private final int hash;

  /**
   * @param aspects the aspect names, not null, owned by the shape from now on
   * @param names the property names in iteration order, not null, owned by the shape
   */
  NodeShape(QName[] aspects, QName[] names) {
    this.aspects = aspects;
    this.names = names;
    this.hash = 31 * Arrays.hashCode(aspects) + Arrays.hashCode(names);
  }

  int aspectCount() {
    return aspects.length;
  }

  int nameCount() {
    return names.length;
  }

  QName aspect(int i) {
    return aspects[i];
  }

  QName name(int i) {
    return names[i];
  }

  @Override
  public boolean equals(Object o) {
    return o == this || o instanceof NodeShape s && hash == s.hash
        && Arrays.equals(aspects, s.aspects) && Arrays.equals(names, s.names);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return "NodeShape" + Arrays.toString(aspects) + Arrays.toString(names);
  }
}
