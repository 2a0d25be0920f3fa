package org.d2l.multigpu.eval;

/**
 * What one epoch of a training run measured, as a row of a {@link MetricsTable} shows it; the
 * trainers' {@code EpochMetrics} is one.
 */
public interface EpochRow {

    /** The epoch, counted from 1. */
    int epoch();

    /** The mean training loss. */
    double trainLoss();

    /** The training accuracy. */
    double trainAccuracy();

    /** The test accuracy (NaN when there was no test set). */
    double testAccuracy();

    /** The seconds spent training. */
    double seconds();

    /** Training examples per second. */
    double examplesPerSecond();

    /** The global steps (or parameter-averaging rounds) the epoch took (0 when not counted). */
    long steps();

    /** How often the replicas were synchronised. */
    long syncs();

    /** The bytes moved for those synchronisations. */
    long syncBytes();

    /** The median seconds of one step (or round), NaN when the steps were not timed one by one. */
    default double medianStepSeconds() {
        return Double.NaN;
    }

    /** The steps skipped for overflowing float16 gradients (0 without loss scaling). */
    default long skippedSteps() {
        return 0;
    }

    /** The loss scale at the end of the epoch, NaN when the epoch used no loss scaling. */
    default double lossScale() {
        return Double.NaN;
    }
}
