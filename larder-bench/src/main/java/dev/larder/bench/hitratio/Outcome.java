package dev.larder.bench.hitratio;

/**
 * Counts from one replay.
 *
 * @param requests requests replayed
 * @param hits requests found in the cache
 * @param requestBytes sum of the requests' sizes
 * @param hitBytes sum of the sizes of the requests that hit
 * @param heldBytes sum of the sizes of the objects the cache held at the end, or -1 if the
 *     contender does not say
 */
public record Outcome(long requests, long hits, long requestBytes, long hitBytes, long heldBytes) {

  public Outcome(long requests, long hits, long requestBytes, long hitBytes) {
    this(requests, hits, requestBytes, hitBytes, -1);
  }

  public double hitRatio() {
    return requests == 0 ? 0 : (double) hits / requests;
  }

  public double byteHitRatio() {
    return requestBytes == 0 ? 0 : (double) hitBytes / requestBytes;
  }
}
