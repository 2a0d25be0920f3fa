package org.d2l.multigpu.parallel;

import java.util.Arrays;
import org.d2l.multigpu.eval.Timer;

/** The sums one epoch of training adds up as it goes, turned into its {@link EpochMetrics} at the end. */
final class EpochTally {

    double lossSum;
    double correct;
    long examples;
    long steps;
    long syncs;
    long syncBytes;
    long skipped;
    /** The time of every step of the epoch. */
    Timer stepTimes = new Timer();
    /** The bytes of the last synchronisation, kept across epochs. */
    long lastSyncBytes;

    /** Starts a new epoch from zero. */
    void reset() {
        lossSum = 0;
        correct = 0;
        examples = 0;
        steps = 0;
        syncs = 0;
        syncBytes = 0;
        skipped = 0;
        stepTimes = new Timer();
    }

    /** Adds a step (or round) that took {@code secs} seconds. */
    void add(StepResult r, double secs) {
        lossSum += r.lossSum();
        correct += r.correct();
        examples += r.examples();
        stepTimes.record(secs);
        steps++;
    }

    /** Counts a synchronisation that moved {@code bytes} (none when 0). */
    void synced(long bytes) {
        if (bytes > 0) {
            lastSyncBytes = bytes;
            syncs++;
            syncBytes += bytes;
        }
    }

    /** The epoch's metrics, with the bytes of optimizer state each replica holds. */
    EpochMetrics metrics(int epoch, double testAccuracy, double lossScale, long[] stateBytes) {
        double seconds = stepTimes.sum();
        return new EpochMetrics(epoch, lossSum / examples, correct / examples, testAccuracy, seconds,
                examples / seconds, syncs, syncBytes, skipped, lossScale, steps,
                Arrays.stream(stateBytes).boxed().toList(), steps == 0 ? Double.NaN : stepTimes.median());
    }
}
