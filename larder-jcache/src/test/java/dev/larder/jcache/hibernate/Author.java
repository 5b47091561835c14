package dev.larder.jcache.hibernate;

import jakarta.persistence.Cacheable;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.OneToMany;
import java.util.HashSet;
import java.util.Set;
import org.hibernate.annotations.Cache;
import org.hibernate.annotations.CacheConcurrencyStrategy;

/** An entity with a cached collection; its region is this class's name. */
@Entity
@Cacheable
@Cache(usage = CacheConcurrencyStrategy.READ_WRITE)
public class Author {

  @Id private Long id;

  private String name;

  /** Region: {@code dev.larder.jcache.hibernate.Author.books}. */
  @OneToMany(mappedBy = "author")
  @Cache(usage = CacheConcurrencyStrategy.READ_WRITE)
  private Set<Book> books = new HashSet<>();

  protected Author() {}

  public Author(long id, String name) {
    this.id = id;
    this.name = name;
  }

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Set<Book> getBooks() {
    return books;
  }
}
