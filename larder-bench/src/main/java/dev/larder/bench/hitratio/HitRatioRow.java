package dev.larder.bench.hitratio;

/**
 * One measured cell.
 *
 * @param trace the trace's short name
 * @param size the bound, as printed (entries, or "N MiB" for byte bounds)
 * @param implementation the contender
 * @param hitRatio hits / requests, 0-1 (mean over the contender's runs)
 * @param byteHitRatio hit bytes / requested bytes, 0-1 (equal to hitRatio for unsized traces)
 * @param byteBound true if the cache was bounded by bytes
 */
record HitRatioRow(
    String trace,
    String size,
    String implementation,
    double hitRatio,
    double byteHitRatio,
    boolean byteBound) {}
