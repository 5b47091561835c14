package dev.larder.jcache.internal;

import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;

/**
 * The outcome of an entry processor on one key in {@code invokeAll}: a value, or the exception that
 * {@link #get} throws as an {@link EntryProcessorException}.
 */
record ProcessorResult<T>(T value, RuntimeException failure) implements EntryProcessorResult<T> {

  @Override
  public T get() {
    if (failure == null) {
      return value;
    }
    throw failure instanceof EntryProcessorException e ? e : new EntryProcessorException(failure);
  }
}
