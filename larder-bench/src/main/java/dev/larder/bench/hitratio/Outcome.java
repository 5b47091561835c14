package dev.larder.bench.hitratio;

/**
 * Counts from one replay.
 *
 * @param requests requests replayed
 * @param hits requests found in the cache
 * @param requestBytes sum of the requests' sizes
 * @param hitBytes sum of the sizes of the requests that hit
 */
record Outcome(long requests, long hits, long requestBytes, long hitBytes) {

  double hitRatio() {
    return requests == 0 ? 0 : (double) hits / requests;
  }

  double byteHitRatio() {
    return requestBytes == 0 ? 0 : (double) hitBytes / requestBytes;
  }
}
