/**
 * The byte store's bulk paths ({@link dev.larder.internal.bulk.BulkRestore}, {@link
 * dev.larder.internal.bulk.EncodedEntries}, {@link dev.larder.internal.bulk.BulkSnapshot}):
 * internal, exported only to the server module, which loads its checkpoints through the first two
 * and takes them through the third.
 */
package dev.larder.internal.bulk;
