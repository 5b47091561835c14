package dev.larder.model;

import java.util.List;
import java.util.Locale;

/**
 * The names and value domains of the content-node memory test's model: a benchmark aspect with one
 * property of each scalar type, the auditable aspect with its five properties, and content. The
 * constants here are canonical instances; generated nodes never share them (see {@link
 * NodeGenerator}).
 */
public final class ContentModel {

  /** The content model's namespace. */
  public static final String CONTENT_NS = "http://www.alfresco.org/model/content/1.0";

  /** The benchmark model's namespace. */
  public static final String BENCHMARK_NS = "http://larder.dev/model/benchmark/1.0";

  /** Well-known namespaces, from which qname-valued properties pick one at random. */
  public static final List<String> NAMESPACES =
      List.of(
          CONTENT_NS,
          "http://www.alfresco.org/model/system/1.0",
          "http://www.alfresco.org/model/dictionary/1.0",
          "http://www.alfresco.org/model/application/1.0",
          "http://www.alfresco.org/model/rendition/1.0",
          "http://www.alfresco.org/model/site/1.0",
          "http://www.alfresco.org/model/user/1.0",
          "http://www.alfresco.org/model/versionstore/2.0",
          "http://www.alfresco.org/model/exif/1.0",
          "http://www.alfresco.org/model/bpm/1.0",
          "http://www.alfresco.org/model/workflow/1.0",
          "http://www.alfresco.org/model/datalist/1.0",
          BENCHMARK_NS);

  /** The auditable aspect. */
  public static final QName AUDITABLE = new QName(CONTENT_NS, "auditable");

  /** The benchmark aspect, holding one property of each scalar type. */
  public static final QName BENCHMARK_PROPERTIES = new QName(BENCHMARK_NS, "benchmarkProperties");

  /** Property names, in the order the generator fills them. */
  public static final QName INT = new QName(BENCHMARK_NS, "intProperty");

  /** A long over the full range. */
  public static final QName LONG = new QName(BENCHMARK_NS, "longProperty");

  /** A float in [0, 1). */
  public static final QName FLOAT = new QName(BENCHMARK_NS, "floatProperty");

  /** A double in [0, 1). */
  public static final QName DOUBLE = new QName(BENCHMARK_NS, "doubleProperty");

  /** A date (midnight UTC). */
  public static final QName DATE = new QName(BENCHMARK_NS, "dateProperty");

  /** A date and time. */
  public static final QName DATETIME = new QName(BENCHMARK_NS, "datetimeProperty");

  /** Text from {@link #TEXT_VALUES}. */
  public static final QName TEXT = new QName(BENCHMARK_NS, "textProperty");

  /** A node reference. */
  public static final QName NODEREF = new QName(BENCHMARK_NS, "noderefProperty");

  /** A qualified name. */
  public static final QName QNAME = new QName(BENCHMARK_NS, "qnameProperty");

  /** Auditable: created. */
  public static final QName CREATED = new QName(CONTENT_NS, "created");

  /** Auditable: creator. */
  public static final QName CREATOR = new QName(CONTENT_NS, "creator");

  /** Auditable: modified. */
  public static final QName MODIFIED = new QName(CONTENT_NS, "modified");

  /** Auditable: modifier. */
  public static final QName MODIFIER = new QName(CONTENT_NS, "modifier");

  /** Auditable: accessed. */
  public static final QName ACCESSED = new QName(CONTENT_NS, "accessed");

  /** The content. */
  public static final QName CONTENT = new QName(CONTENT_NS, "content");

  /** The list-of-values constraint of the text property: 9 strings of about 32 characters. */
  public static final List<String> TEXT_VALUES =
      List.of(
          "Quarterly report of the northern",
          "Minutes of the board meeting, May",
          "Draft contract for the new supplier",
          "Technical specification, version 2",
          "Invoice batch awaiting approval",
          "Marketing plan for the spring launch",
          "Customer feedback survey results",
          "Internal audit findings and actions",
          "Onboarding checklist for new staff");

  /** Users who create and modify nodes. */
  public static final List<String> USERS = List.of("admin", "System", "jsmith", "mjones", "guest");

  /** The store of generated node references. */
  public static final StoreRef SPACES_STORE = new StoreRef("workspace", "SpacesStore");

  /** The mimetype of generated content. */
  public static final String MIMETYPE = "text/plain";

  /** The encoding of generated content. */
  public static final String ENCODING = "UTF-8";

  /** The locale of generated content. */
  public static final Locale LOCALE = Locale.UK;

  private ContentModel() {}
}
