package org.d2l.multigpu.parallel;

import java.util.Arrays;
import org.d2l.multigpu.eval.Timer;
import org.d2l.multigpu.loop.EpochMetrics;

/** The sums one epoch of training adds up as it goes, turned into its {@link EpochMetrics} at the end. */
final class EpochTally {

    private double lossSum;
    private double correct;
    private long examples;
    private long steps;
    private long syncs;
    private long syncBytes;
    private long skipped;
    /** The time of every step of the epoch. */
    private Timer stepTimes = new Timer();
    /** The bytes of the last synchronisation, kept across epochs. */
    private long lastSyncBytes;

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

    /** Counts a step that float16 skipped (a gradient overflowed). */
    void skipped() {
        skipped++;
    }

    /** The steps (or rounds) of the epoch so far. */
    long steps() {
        return steps;
    }

    /** The mean training loss of the epoch so far. */
    double meanLoss() {
        return lossSum / examples;
    }

    /** The examples of the epoch so far. */
    long examples() {
        return examples;
    }

    /** The bytes of the last synchronisation, kept across epochs. */
    long lastSyncBytes() {
        return lastSyncBytes;
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
