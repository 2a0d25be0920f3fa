package org.d2l.multigpu.earlystopping;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The decision of early stopping, without any training: fed one score per epoch, it says whether the
 * epoch is the new best and whether to stop, and why.
 *
 * <p>An epoch is the new best when it is the first or its score beats the best so far by more than
 * the minimum improvement (higher or lower, as the monitor says); a smaller gain counts as no
 * improvement, and that epoch's parameters are not kept (as in Keras's {@code EarlyStopping}). The
 * run stops after epoch {@code e} when {@code e - bestEpoch >= patience} (Deeplearning4j's
 * {@code ScoreImprovementEpochTerminationCondition}), when {@code e >= maxEpochs}, or when the time
 * since the rule was made is at least the maximum duration.
 */
public final class StoppingRule {

    /** What the rule decided after one epoch; {@code reason} is null when the run goes on. */
    public record Verdict(int epoch, double score, boolean newBest, StopReason reason, String message) {

        /** Whether the run stops after this epoch. */
        public boolean stop() {
            return reason != null;
        }
    }

    private final EarlyStoppingConfiguration config;
    private Instant start;
    private final List<Double> scores = new ArrayList<>();
    private int bestEpoch;
    private double bestScore = Double.NaN;
    private Verdict last;

    /** A rule for one run of {@code config}; the run's time starts now, on the configuration's clock. */
    public StoppingRule(EarlyStoppingConfiguration config) {
        if (config == null) {
            throw new IllegalArgumentException("StoppingRule needs a configuration: EarlyStoppingConfiguration.builder()...build().");
        }
        this.config = config;
        this.start = config.getClock().instant();
    }

    /** Takes the score of the next epoch (1, 2, ...) and decides. */
    public Verdict observe(double score) {
        if (last != null && last.stop()) {
            throw new IllegalStateException("The run already stopped after epoch " + last.epoch() + " ("
                    + last.message() + "): start a new StoppingRule for a new run.");
        }
        scores.add(score);
        int epoch = scores.size();
        ScoreMonitor monitor = config.getMonitor();
        boolean newBest = false;
        StopReason reason = null;
        String message = null;
        if (!Double.isFinite(score)) {
            reason = StopReason.INVALID_SCORE;
            message = String.format(Locale.ROOT, "the %s of epoch %d is %s", monitor.name(), epoch, score);
        } else {
            if (bestEpoch == 0 || improvement(score) > config.getMinImprovement()) {
                bestEpoch = epoch;
                bestScore = score;
                newBest = true;
            }
            Duration elapsed = Duration.between(start, config.getClock().instant());
            int patience = config.getEpochPatience();
            if (patience > 0 && epoch - bestEpoch >= patience) {
                reason = StopReason.NO_IMPROVEMENT;
                message = String.format(Locale.ROOT, "the %s did not improve by more than %s for %d epochs",
                        monitor.name(), config.getMinImprovement(), patience);
            } else if (config.getMaxDuration() != null && elapsed.compareTo(config.getMaxDuration()) >= 0) {
                reason = StopReason.MAX_TIME;
                message = String.format(Locale.ROOT, "%s passed, the maximum is %s", elapsed, config.getMaxDuration());
            } else if (config.getMaxEpochs() > 0 && epoch >= config.getMaxEpochs()) {
                reason = StopReason.MAX_EPOCHS;
                message = "trained the maximum of " + config.getMaxEpochs() + " epochs";
            }
        }
        last = new Verdict(epoch, score, newBest, reason, message);
        return last;
    }

    /** What the rule decided after the last epoch, or null before the first. */
    Verdict last() {
        return last;
    }

    /**
     * Puts a checkpoint's state back: the scores of the epochs so far, the best epoch and score, the time
     * the run had taken (its clock goes on from there) and the last decision.
     */
    void resume(List<Double> scores, int bestEpoch, double bestScore, Duration elapsed, Verdict last) {
        this.scores.clear();
        this.scores.addAll(scores);
        this.bestEpoch = bestEpoch;
        this.bestScore = bestScore;
        this.start = config.getClock().instant().minus(elapsed);
        this.last = last;
    }

    /** How much better {@code score} is than the best so far (negative when worse). */
    private double improvement(double score) {
        return config.getMonitor().higherIsBetter() ? score - bestScore : bestScore - score;
    }

    /** The best epoch so far (1-based), or 0 before the first valid score. */
    public int bestEpoch() {
        return bestEpoch;
    }

    /** The best score so far, or NaN before the first valid score. */
    public double bestScore() {
        return bestScore;
    }

    /** Every epoch's score so far, in order. */
    public List<Double> scores() {
        return Collections.unmodifiableList(scores);
    }

    /** The time since the rule was made, on the configuration's clock. */
    public Duration elapsed() {
        return Duration.between(start, config.getClock().instant());
    }
}
