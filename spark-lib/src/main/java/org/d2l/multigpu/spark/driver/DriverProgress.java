package org.d2l.multigpu.spark.driver;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.spark.CompressionValues;
import org.d2l.multigpu.spark.ParameterValues;

/**
 * What a Spark trainer's driver carries from one epoch to the next, and its checkpoints hold: the
 * optimizer state (and compressor state) the next epoch's tasks start from, the finished epochs, and a counter (averaging rounds
 * run, or steps taken) from which each task's update count follows.
 */
final class DriverProgress {

    /** The optimizer state the next epoch starts from (null before the first). */
    private ParameterValues optimizerState;
    /** What the ranks' compressors remember after the last complete epoch (empty before the first, or without one). */
    private CompressionValues compression = CompressionValues.empty();
    /** The metrics of every finished epoch. */
    private final List<EpochMetrics> history = new ArrayList<>();
    /** Epochs started and trained (ahead of the history while an epoch is evaluated). */
    private int epochs;
    /** Rounds run or steps taken, as the trainer counts them. */
    private int count;

    /** The optimizer state the next epoch starts from (null before the first). */
    ParameterValues optimizerState() {
        return optimizerState;
    }

    /** Sets the optimizer state the next epoch (or round) starts from. */
    void optimizerState(ParameterValues state) {
        optimizerState = state;
    }

    /** What the ranks' compressors remember after the last complete epoch. */
    CompressionValues compression() {
        return compression;
    }

    /** Sets what the ranks' compressors remember. */
    void compression(CompressionValues values) {
        compression = values;
    }

    /** The metrics of every finished epoch, oldest first (a view). */
    List<EpochMetrics> history() {
        return Collections.unmodifiableList(history);
    }

    /** Records a finished epoch's metrics. */
    void finished(EpochMetrics m) {
        history.add(m);
    }

    /** Epochs started and trained. */
    int epochs() {
        return epochs;
    }

    /** Counts an epoch trained (before its evaluation). */
    void epochTrained() {
        epochs++;
    }

    /** Rounds run or steps taken, as the trainer counts them. */
    int count() {
        return count;
    }

    /** Adds {@code n} rounds or steps to the counter and returns it. */
    int count(int n) {
        count += n;
        return count;
    }

    /** Puts back a checkpoint's optimizer state, finished epochs and counter. */
    void restore(ParameterValues state, List<EpochMetrics> epochsDone, int counted) {
        optimizerState = state;
        history.clear();
        history.addAll(epochsDone);
        epochs = epochsDone.size();
        count = counted;
    }
}
