package dev.larder.model;

import java.io.Serializable;
import java.util.Locale;

/**
 * The description of a node's binary content. Every component but {@code size} may be null, as in
 * the repositories this models.
 *
 * @param contentUrl where the content is stored, e.g. {@code store://2020/6/30/12/5/<uuid>.bin}
 * @param mimetype e.g. {@code text/plain}
 * @param size the content's length in bytes
 * @param encoding e.g. {@code UTF-8}
 * @param locale the content's locale
 */
public record ContentData(
    String contentUrl, String mimetype, long size, String encoding, Locale locale)
    implements Serializable {

  private static final long serialVersionUID = 1L;
}
