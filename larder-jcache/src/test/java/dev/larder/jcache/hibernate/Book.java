package dev.larder.jcache.hibernate;

import jakarta.persistence.Cacheable;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import org.hibernate.annotations.Cache;
import org.hibernate.annotations.CacheConcurrencyStrategy;

/** A cached entity; its region is this class's name. */
@Entity
@Cacheable
@Cache(usage = CacheConcurrencyStrategy.READ_WRITE)
public class Book {

  @Id private Long id;

  private String title;

  @ManyToOne(fetch = FetchType.LAZY)
  private Author author;

  protected Book() {}

  public Book(long id, String title, Author author) {
    this.id = id;
    this.title = title;
    this.author = author;
  }

  public Long getId() {
    return id;
  }

  public String getTitle() {
    return title;
  }

  public void setTitle(String title) {
    this.title = title;
  }

  public Author getAuthor() {
    return author;
  }
}
