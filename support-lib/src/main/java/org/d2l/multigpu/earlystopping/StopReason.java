package org.d2l.multigpu.earlystopping;

/**
 * Why an early-stopping run ended; when several conditions hold after the same epoch, the first in
 * this order is reported.
 */
public enum StopReason {
    /** The monitored score was NaN or infinite. */
    INVALID_SCORE,
    /** The score did not improve (by more than the minimum improvement) for {@code patience} epochs. */
    NO_IMPROVEMENT,
    /** The run took at least the maximum time. */
    MAX_TIME,
    /** The run trained the maximum number of epochs. */
    MAX_EPOCHS
}
