package dev.larder.simulator;

/**
 * The knobs of the simulated policy.
 *
 * @param initialWindow the window's starting share of the capacity
 * @param minWindow the smallest share the adaptation may give the window
 * @param maxWindow the largest share
 * @param climb true to adapt the window by hill climbing on the hit ratio
 * @param sampleFactor requests per climbing sample, as a multiple of the capacity in entries
 * @param minSample the fewest requests in a climbing sample
 * @param step the first climbing step, as a share of the capacity
 * @param decay the factor applied to the step after each sample
 * @param ghostAdapt true to adapt the window on ghost hits (ARC-style)
 * @param ghostStep the window change per ghost hit, as a share of the capacity
 * @param ghostFactor the ghost table's capacity, as a multiple of the resident entries
 * @param ghostToMain true to insert a missed key found in the ghost straight into main
 * @param ghostAdmit true to admit a window candidate that the ghost remembers
 * @param bias admission threshold: a candidate is admitted if its frequency + bias exceeds the
 *     victim's (0 is TinyLFU; large values admit always)
 * @param adaptBias true to adapt the bias on ghost hits
 */
record PolicyParams(
    double initialWindow,
    double minWindow,
    double maxWindow,
    boolean climb,
    double sampleFactor,
    int minSample,
    double step,
    double decay,
    boolean ghostAdapt,
    double ghostStep,
    double ghostFactor,
    boolean ghostToMain,
    boolean ghostAdmit,
    int bias,
    boolean adaptBias) {

  static PolicyParams defaults() {
    return new PolicyParams(
        0.01, 0.01, 0.8, true, 10, 0, 0.0625, 0.98, false, 0.01, 1.0, false, false, 0, false);
  }

  PolicyParams withClimb(boolean on, double sample, int minimum, double firstStep, double d) {
    return new PolicyParams(
        initialWindow,
        minWindow,
        maxWindow,
        on,
        sample,
        minimum,
        firstStep,
        d,
        ghostAdapt,
        ghostStep,
        ghostFactor,
        ghostToMain,
        ghostAdmit,
        bias,
        adaptBias);
  }

  PolicyParams withGhost(
      boolean adapt, double stepShare, double factor, boolean toMain, boolean admit) {
    return new PolicyParams(
        initialWindow,
        minWindow,
        maxWindow,
        climb,
        sampleFactor,
        minSample,
        step,
        decay,
        adapt,
        stepShare,
        factor,
        toMain,
        admit,
        bias,
        adaptBias);
  }

  PolicyParams withWindow(double initial, double min, double max) {
    return new PolicyParams(
        initial,
        min,
        max,
        climb,
        sampleFactor,
        minSample,
        step,
        decay,
        ghostAdapt,
        ghostStep,
        ghostFactor,
        ghostToMain,
        ghostAdmit,
        bias,
        adaptBias);
  }

  PolicyParams withBias(int b, boolean adapt) {
    return new PolicyParams(
        initialWindow,
        minWindow,
        maxWindow,
        climb,
        sampleFactor,
        minSample,
        step,
        decay,
        ghostAdapt,
        ghostStep,
        ghostFactor,
        ghostToMain,
        ghostAdmit,
        b,
        adapt);
  }
}
