package org.d2l.multigpu.parallel;

/**
 * Told about a training run as it goes, once before the first epoch and after every epoch: a live
 * figure, a log line, early stopping.
 */
public interface EpochListener {

    /** Called once before the first epoch of a {@code fit} call, with the number of epochs planned. */
    default void onFitStart(int numEpochs) {}

    /** Called after every finished epoch with its metrics. */
    void onEpoch(EpochMetrics metrics);
}
