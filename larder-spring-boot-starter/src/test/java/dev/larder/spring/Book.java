package dev.larder.spring;

/**
 * A cached value of the sample application.
 *
 * @param id the book's id
 * @param title its title
 */
public record Book(long id, String title) {}
