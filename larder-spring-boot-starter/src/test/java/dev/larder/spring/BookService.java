package dev.larder.spring;

import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cache.annotation.Cacheable;

/** The sample application's service: counts how often the "database" is asked. */
public class BookService {

  private final AtomicInteger lookups = new AtomicInteger();

  /** @return how often a result was computed rather than served from the cache */
  public int lookups() {
    return lookups.get();
  }

  /**
   * @param id a book id; 0 has no book
   * @return the book, or null
   */
  @Cacheable("books")
  public Book find(long id) {
    lookups.incrementAndGet();
    return id == 0 ? null : new Book(id, "title " + id);
  }

  /**
   * @param isbn any string
   * @return its length, looked up through a cache declared only by defaults
   */
  @Cacheable("isbns")
  public Integer isbnLength(String isbn) {
    lookups.incrementAndGet();
    return isbn.length();
  }
}
