package dev.larder.model;

import java.util.Date;

/**
 * A {@link Date} whose setters throw: the dates in decoded nodes, so that a decoded node can change
 * in no way and a cache may hand one decoded instance to many readers. Equal to any Date of the
 * same time (Date's {@code equals} compares times); serialized as a plain Date.
 */
final class FrozenDate extends Date {

  private static final long serialVersionUID = 1L;

  /**
   * @param millis milliseconds since the epoch
   */
  @SuppressWarnings("JavaUtilDate") // the node model serves java.util.Date, which users store
  FrozenDate(long millis) {
    super(millis);
  }

  @Override
  public void setTime(long time) {
    throw refused();
  }

  @Deprecated
  @Override
  public void setYear(int year) {
    throw refused();
  }

  @Deprecated
  @Override
  public void setMonth(int month) {
    throw refused();
  }

  @Deprecated
  @Override
  public void setDate(int date) {
    throw refused();
  }

  @Deprecated
  @Override
  public void setHours(int hours) {
    throw refused();
  }

  @Deprecated
  @Override
  public void setMinutes(int minutes) {
    throw refused();
  }

  @Deprecated
  @Override
  public void setSeconds(int seconds) {
    throw refused();
  }

  private static UnsupportedOperationException refused() {
    return new UnsupportedOperationException(
        "the dates of a decoded node cannot be changed:"
            + " copy one with new Date(date.getTime())");
  }

  /** A plain Date in the stream, so that readers need not know this class. */
  @SuppressWarnings("JavaUtilDate") // the node model serves java.util.Date, which users store
  private Object writeReplace() {
    return new Date(getTime());
  }
}
