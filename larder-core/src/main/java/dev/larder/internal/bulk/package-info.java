/**
 * The byte store's bulk restore ({@link dev.larder.internal.bulk.BulkRestore}, {@link
 * dev.larder.internal.bulk.EncodedEntries}): internal, exported only to the server module, which
 * loads its checkpoints through it.
 */
package dev.larder.internal.bulk;
