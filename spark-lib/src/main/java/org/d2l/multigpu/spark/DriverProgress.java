package org.d2l.multigpu.spark;

import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.parallel.EpochMetrics;

/**
 * What a Spark trainer's driver carries from one epoch to the next, and its checkpoints hold: the
 * optimizer state (and compressor state) the next epoch's tasks start from, the finished epochs, and a counter (averaging rounds
 * run, or steps taken) from which each task's update count follows.
 */
final class DriverProgress {

    /** The optimizer state the next epoch starts from (null before the first). */
    ParameterValues optimizerState;
    /** What the ranks' compressors remember after the last complete epoch (empty before the first, or without one). */
    CompressionValues compression = CompressionValues.empty();
    /** The metrics of every finished epoch. */
    final List<EpochMetrics> history = new ArrayList<>();
    /** Epochs started and trained (ahead of the history while an epoch is evaluated). */
    int epochs;
    /** Rounds run or steps taken, as the trainer counts them. */
    int count;

    /** Puts back a checkpoint's optimizer state, finished epochs and counter. */
    void restore(ParameterValues state, List<EpochMetrics> epochsDone, int counted) {
        optimizerState = state;
        history.clear();
        history.addAll(epochsDone);
        epochs = epochsDone.size();
        count = counted;
    }
}
