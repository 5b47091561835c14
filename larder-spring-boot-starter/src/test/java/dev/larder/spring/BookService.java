package dev.larder.spring;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cache.annotation.Cacheable;

/** The sample application's service: counts how often the "database" is asked. */
public class BookService {

  private final AtomicInteger lookups = new AtomicInteger();

  /** Returns how often a result was computed rather than served from the cache. */
  public int lookups() {
    return lookups.get();
  }

  /**
   * Returns the book, or null.
   *
   * @param id a book id; 0 has no book
   */
  @Cacheable("books")
  public Book find(long id) {
    lookups.incrementAndGet();
    return id == 0 ? null : new Book(id, "title " + id);
  }

  /**
   * Returns its length, looked up through a cache declared only by defaults.
   *
   * @param isbn any string
   */
  @Cacheable("isbns")
  public Integer isbnLength(String isbn) {
    lookups.incrementAndGet();
    return isbn.length();
  }

  /** Returns a count, cached under Spring's empty key (a method with no parameters). */
  @Cacheable("counts")
  public Integer count() {
    lookups.incrementAndGet();
    return 42;
  }

  /**
   * Returns a label, cached under a SimpleKey of both parameters.
   *
   * @param shelf a shelf
   * @param position a position on it
   */
  @Cacheable("labels")
  public String label(String shelf, int position) {
    lookups.incrementAndGet();
    return shelf + "-" + position;
  }

  /**
   * Returns how many, cached under the list itself (an Object key).
   *
   * @param ids book ids
   */
  @Cacheable("sizes")
  public Integer size(List<Long> ids) {
    lookups.incrementAndGet();
    return ids.size();
  }
}
