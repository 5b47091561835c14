package dev.larder.model;

import java.io.Serializable;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The properties of a decoded node: its shape's names and an array of values, in the shape's order.
 * About 100 bytes for 15 properties where a {@code HashMap} takes nearly 700, and nothing to hash
 * when a node is decoded.
 *
 * <p>Unmodifiable: every mutator throws {@link UnsupportedOperationException}. Null values are
 * allowed, as in the nodes it models. Equality and hash code follow the {@link Map} contract, so it
 * equals a {@code HashMap} with the same mappings. Safe for concurrent reads; it never changes
 * after construction.
 */
final class ShapedProperties extends AbstractMap<QName, Serializable> implements Serializable {

  private static final long serialVersionUID = 1L;

  private final transient NodeShape shape;

  /** Every element is a Serializable or null (an Object array: no store checks on decode). */
  private final Object[] values;

  /**
   * @param shape the names
   * @param values one value per name, owned by this map from now on
   */
  ShapedProperties(NodeShape shape, Object[] values) {
    this.shape = shape;
    this.values = values;
  }

  NodeShape shape() {
    return shape;
  }

  Object value(int i) {
    return values[i];
  }

  @Override
  public int size() {
    return values.length;
  }

  @Override
  public boolean containsKey(Object key) {
    return shape.indexOf(key) >= 0;
  }

  @Override
  public Serializable get(Object key) {
    int i = shape.indexOf(key);
    return i < 0 ? null : (Serializable) values[i];
  }

  @Override
  public Serializable getOrDefault(Object key, Serializable defaultValue) {
    int i = shape.indexOf(key);
    return i < 0 ? defaultValue : (Serializable) values[i];
  }

  @Override
  public void forEach(BiConsumer<? super QName, ? super Serializable> action) {
    for (int i = 0; i < values.length; i++) {
      action.accept(shape.name(i), (Serializable) values[i]);
    }
  }

  @Override
  public Set<Map.Entry<QName, Serializable>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return values.length;
      }

      @Override
      public Iterator<Map.Entry<QName, Serializable>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < values.length;
          }

          @Override
          public Map.Entry<QName, Serializable> next() {
            if (next >= values.length) {
              throw new NoSuchElementException();
            }
            int i = next++;
            return new SimpleImmutableEntry<>(shape.name(i), (Serializable) values[i]);
          }
        };
      }
    };
  }

  /** Serialized as a plain map, so readers need not know this class. */
  private Object writeReplace() {
    return new java.util.HashMap<>(this);
  }
}
