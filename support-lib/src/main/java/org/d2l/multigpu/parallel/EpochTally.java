package org.d2l.multigpu.parallel;

/** The sums one epoch of training adds up as it goes, turned into its {@link EpochMetrics} at the end. */
final class EpochTally {

    double lossSum;
    double correct;
    long examples;
    double seconds;
    long steps;
    long syncs;
    long syncBytes;
    long skipped;

    /** Starts a new epoch from zero. */
    void reset() {
        lossSum = 0;
        correct = 0;
        examples = 0;
        seconds = 0;
        steps = 0;
        syncs = 0;
        syncBytes = 0;
        skipped = 0;
    }

    /** Adds a step (or round) that took {@code secs} seconds. */
    void add(DataParallelTrainer.StepResult r, double secs) {
        lossSum += r.lossSum();
        correct += r.correct();
        examples += r.examples();
        seconds += secs;
        steps++;
    }

    /** Counts a synchronisation that moved {@code bytes} (none when 0). */
    void synced(long bytes) {
        if (bytes > 0) {
            syncs++;
            syncBytes += bytes;
        }
    }

    /** The epoch's metrics. */
    EpochMetrics metrics(int epoch, double testAccuracy, double lossScale) {
        return new EpochMetrics(epoch, lossSum / examples, correct / examples, testAccuracy, seconds,
                examples / seconds, syncs, syncBytes, skipped, lossScale);
    }
}
