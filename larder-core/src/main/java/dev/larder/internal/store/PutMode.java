package dev.larder.internal.store;

/** Conditions under which a write applies. */
public enum PutMode {
  /** Always. */
  ALWAYS,
  /** Only if no live value is present. */
  IF_ABSENT,
  /** Only if a live value is present. */
  IF_PRESENT,
  /** Only if the present value's bytes equal the expected bytes. */
  IF_EQUALS
}
