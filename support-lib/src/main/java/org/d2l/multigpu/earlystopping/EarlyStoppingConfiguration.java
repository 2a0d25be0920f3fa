package org.d2l.multigpu.earlystopping;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * When an early-stopping run ends (at most {@code maxEpochs} epochs, at most {@code maxDuration} of
 * time, or {@code epochPatience} epochs without an improvement of more than {@code minImprovement})
 * and which score it watches; built with {@link #builder()}.
 */
public final class EarlyStoppingConfiguration {

    private final ScoreMonitor monitor;
    private final int maxEpochs;
    private final Duration maxDuration;
    private final int epochPatience;
    private final double minImprovement;
    private final InstantSource clock;

    private EarlyStoppingConfiguration(Builder b) {
        this.monitor = b.monitor;
        this.maxEpochs = b.maxEpochs;
        this.maxDuration = b.maxDuration;
        this.epochPatience = b.epochPatience;
        this.minImprovement = b.minImprovement;
        this.clock = b.clock;
    }

    /** Starts a builder; set at least one of max epochs, max duration and epoch patience. */
    public static Builder builder() {
        return new Builder();
    }

    /** The watched score. */
    public ScoreMonitor getMonitor() {
        return monitor;
    }

    /** The maximum number of epochs, or 0 when there is none. */
    public int getMaxEpochs() {
        return maxEpochs;
    }

    /** The maximum time of the run, or null when there is none. */
    public Duration getMaxDuration() {
        return maxDuration;
    }

    /** The number of epochs without improvement after which the run stops, or 0 when there is none. */
    public int getEpochPatience() {
        return epochPatience;
    }

    /** How much better than the best score so far an epoch's score must be to count as an improvement. */
    public double getMinImprovement() {
        return minImprovement;
    }

    /** The clock that measures the run's time. */
    public InstantSource getClock() {
        return clock;
    }

    @Override
    public String toString() {
        List<String> limits = new ArrayList<>();
        if (maxEpochs > 0) {
            limits.add("at most " + maxEpochs + " epochs");
        }
        if (maxDuration != null) {
            limits.add("at most " + maxDuration);
        }
        if (epochPatience > 0) {
            limits.add(String.format(Locale.ROOT, "patience %d epochs (min improvement %s)", epochPatience,
                    minImprovement));
        }
        return "early stopping on " + monitor + ": " + String.join(", ", limits);
    }

    /** Configures an {@link EarlyStoppingConfiguration}, DJL style. */
    public static final class Builder {
        private ScoreMonitor monitor = ScoreMonitor.testAccuracy();
        private int maxEpochs;
        private Duration maxDuration;
        private int epochPatience;
        private double minImprovement;
        private InstantSource clock = InstantSource.system();

        private Builder() {}

        /** The watched score, by default {@link ScoreMonitor#testAccuracy()}. */
        public Builder optMonitor(ScoreMonitor monitor) {
            if (monitor == null) {
                throw new IllegalArgumentException(
                        "The score monitor is null: use ScoreMonitor.testAccuracy(), trainLoss() or validationLoss(...).");
            }
            this.monitor = monitor;
            return this;
        }

        /** Stops after {@code maxEpochs} epochs. */
        public Builder optMaxEpochs(int maxEpochs) {
            if (maxEpochs < 1) {
                throw new IllegalArgumentException("maxEpochs must be at least 1, got " + maxEpochs + ".");
            }
            this.maxEpochs = maxEpochs;
            return this;
        }

        /** Stops after the first epoch that ends when {@code maxDuration} or more has passed since the start. */
        public Builder optMaxDuration(Duration maxDuration) {
            if (maxDuration == null || maxDuration.isNegative() || maxDuration.isZero()) {
                throw new IllegalArgumentException("maxDuration must be positive, got " + maxDuration
                        + ": use for example Duration.ofMinutes(10).");
            }
            this.maxDuration = maxDuration;
            return this;
        }

        /** Stops when the score has not improved for {@code epochPatience} epochs in a row (at least 1). */
        public Builder optEpochPatience(int epochPatience) {
            if (epochPatience < 1) {
                throw new IllegalArgumentException("epochPatience must be at least 1 epoch, got " + epochPatience
                        + ": it is the number of epochs without improvement after which the run stops.");
            }
            this.epochPatience = epochPatience;
            return this;
        }

        /**
         * Counts an epoch as an improvement only when its score beats the best so far by more than
         * {@code minImprovement}, in the score's own units (default 0: any strict improvement).
         */
        public Builder optMinImprovement(double minImprovement) {
            if (!(minImprovement >= 0) || Double.isInfinite(minImprovement)) {
                throw new IllegalArgumentException("minImprovement must be a finite number >= 0, got "
                        + minImprovement + ": it is how much better a score must be, in the score's units "
                        + "(for example 0.001 for accuracy), whether higher or lower is better.");
            }
            this.minImprovement = minImprovement;
            return this;
        }

        /** The clock that measures the run's time (default the system clock; tests give their own). */
        Builder optClock(InstantSource clock) {
            if (clock == null) {
                throw new IllegalArgumentException("The clock is null: leave it out to use the system clock.");
            }
            this.clock = clock;
            return this;
        }

        /** Builds the configuration; fails when no termination condition is set. */
        public EarlyStoppingConfiguration build() {
            if (maxEpochs == 0 && maxDuration == null && epochPatience == 0) {
                throw new IllegalArgumentException("No termination condition: the run would never stop. Set at "
                        + "least one of optMaxEpochs(n), optMaxDuration(d) and optEpochPatience(p).");
            }
            if (minImprovement > 0 && epochPatience == 0) {
                throw new IllegalArgumentException("minImprovement " + minImprovement + " is set but no "
                        + "epochPatience: set optEpochPatience(p) too, or leave minImprovement out.");
            }
            return new EarlyStoppingConfiguration(this);
        }
    }
}
