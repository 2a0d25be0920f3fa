package org.d2l.multigpu.earlystopping;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.d2l.multigpu.loop.EpochMetrics;

/**
 * How an early-stopping run ended: the stop reason and its message, the best epoch (1-based within
 * the run, 0 when no epoch had a valid score) and its score, every epoch's score and metrics, and
 * the run's time.
 */
public record EarlyStoppingResult(StopReason reason, String message, String scoreName, int bestEpoch,
        double bestScore, List<Double> scores, List<EpochMetrics> history, Duration elapsed) {

    /** Copies the lists, so that the result does not change afterwards. */
    public EarlyStoppingResult {
        scores = List.copyOf(scores);
        history = List.copyOf(history);
    }

    /** The number of epochs the run trained. */
    public int totalEpochs() {
        return scores.size();
    }

    /** One line for a notebook: why the run stopped, after how many epochs, and the best epoch. */
    public String summary() {
        return String.format(Locale.ROOT, "Stopped after %d epochs (%s: %s); best %s %.4f at epoch %d.",
                totalEpochs(), reason, message, scoreName, bestScore, bestEpoch);
    }
}
