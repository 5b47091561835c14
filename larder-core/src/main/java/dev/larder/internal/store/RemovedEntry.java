package dev.larder.internal.store;

import dev.larder.RemovalCause;

/**
 * The bytes of an entry that left a segment, kept for the removal listener.
 *
 * @param key encoded key
 * @param value encoded value
 * @param cause why it left
 */
@SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
public record RemovedEntry(byte[] key, byte[] value, RemovalCause cause) {}
