package dev.larder.model;

import java.util.List;
import java.util.SplittableRandom;

/** Words of the classic placeholder text, from which local names are made. */
final class LoremIpsum {

  private static final List<String> WORDS =
      List.of(
          "lorem",
          "ipsum",
          "dolor",
          "sit",
          "amet",
          "consectetur",
          "adipiscing",
          "elit",
          "sed",
          "do",
          "eiusmod",
          "tempor",
          "incididunt",
          "ut",
          "labore",
          "et",
          "dolore",
          "magna",
          "aliqua",
          "enim",
          "ad",
          "minim",
          "veniam",
          "quis",
          "nostrud",
          "exercitation",
          "ullamco",
          "laboris",
          "nisi",
          "aliquip",
          "ex",
          "ea",
          "commodo",
          "consequat",
          "duis",
          "aute",
          "irure",
          "in",
          "reprehenderit",
          "voluptate",
          "velit",
          "esse",
          "cillum",
          "fugiat",
          "nulla",
          "pariatur",
          "excepteur",
          "sint",
          "occaecat",
          "cupidatat",
          "non",
          "proident",
          "sunt",
          "culpa",
          "qui",
          "officia",
          "deserunt",
          "mollit",
          "anim",
          "id",
          "est",
          "laborum");

  private LoremIpsum() {}

  /**
   * Returns one to three words in camel case, e.g. {@code doloreMagna}.
   *
   * @param random the source of randomness
   */
  static String localName(SplittableRandom random) {
    int words = 1 + random.nextInt(3);
    StringBuilder name = new StringBuilder(32);
    for (int i = 0; i < words; i++) {
      String w = WORDS.get(random.nextInt(WORDS.size()));
      name.append(i == 0 ? w : Character.toUpperCase(w.charAt(0)) + w.substring(1));
    }
    return name.toString();
  }
}
