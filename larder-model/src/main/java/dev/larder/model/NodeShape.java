package dev.larder.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The names of a node, in the order its collections iterate: its aspects, then its property names.
 * Nodes of one type share a shape, so the substituting node codec writes a shape as one dictionary
 * id instead of a name per property, and decoded nodes share their shape's names instead of each
 * holding a hash table of them.
 *
 * <p>Immutable and safe to share between threads through plain fields (every field is final; the
 * one computed later, the name index, is published through a volatile field).
 */
final class NodeShape {

  /** Shapes with more property names than this find a name through a hash index. */
  private static final int SCAN_LIMIT = 12;

  private final QName[] aspects;
  private final QName[] names;
  private final int[] nameHashes;
  private final Set<QName> aspectSet;
  private final int hash;
  private volatile Map<QName, Integer> index;

  /**
   * @param aspects the aspect names, not null, owned by the shape from now on
   * @param names the property names in iteration order, not null and without duplicates, owned by
   *     the shape from now on
   */
  NodeShape(QName[] aspects, QName[] names) {
    this.aspects = aspects;
    this.names = names;
    this.nameHashes = new int[names.length];
    for (int i = 0; i < names.length; i++) {
      nameHashes[i] = names[i].hashCode();
    }
    this.aspectSet = Collections.unmodifiableSet(new HashSet<>(Arrays.asList(aspects)));
    this.hash = 31 * Arrays.hashCode(aspects) + Arrays.hashCode(nameHashes);
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

  /** Returns the aspects as an unmodifiable set, shared by every node of this shape. */
  Set<QName> aspectSet() {
    return aspectSet;
  }

  /**
   * Returns the position of the property name equal to {@code key}, or -1.
   *
   * @param key any object, possibly null
   */
  @SuppressWarnings("ReferenceEquality") // identity scan first: keys are mostly the shape's
  int indexOf(Object key) {
    if (!(key instanceof QName name)) {
      return -1;
    }
    if (names.length > SCAN_LIMIT) {
      Integer at = index().get(name);
      return at == null ? -1 : at;
    }
    for (int i = 0; i < names.length; i++) {
      if (names[i] == name) {
        return i;
      }
    }
    int h = name.hashCode();
    for (int i = 0; i < names.length; i++) {
      if (nameHashes[i] == h && names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private Map<QName, Integer> index() {
    Map<QName, Integer> built = index;
    if (built == null) {
      built = HashMap.newHashMap(names.length);
      for (int i = 0; i < names.length; i++) {
        built.putIfAbsent(names[i], i);
      }
      index = built;
    }
    return built;
  }

  /** Returns true if no property name appears twice (decoded shapes are checked with this). */
  boolean hasDistinctNames() {
    if (names.length > SCAN_LIMIT) {
      return index().size() == names.length;
    }
    for (int i = 1; i < names.length; i++) {
      for (int j = 0; j < i; j++) {
        if (nameHashes[i] == nameHashes[j] && names[i].equals(names[j])) {
          return false;
        }
      }
    }
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o == this
        || (o instanceof NodeShape s
            && hash == s.hash
            && Arrays.equals(aspects, s.aspects)
            && Arrays.equals(names, s.names));
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
