package dev.larder.internal.store;

/**
 * A value a write stores, ready to replace its key's entry in the hot tier if it has one: the key
 * and value objects readers will be handed (immutable: the cache's codecs say so) and the bytes
 * they retain.
 *
 * @param key the key object
 * @param value the value object; equal to what the written bytes decode to
 * @param bytes the retained size of key and value ({@link RetainedSize})
 */
public record HotValue(Object key, Object value, long bytes) {}
