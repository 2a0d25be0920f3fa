package org.d2l.multigpu.lesson;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.d2l.multigpu.eval.Timer;

/**
 * The training runs a from-scratch lesson has finished, by name: each run's training loss and test
 * accuracy per epoch, the time of each step, and the steps after which its replicas differed.
 */
public final class RunLog {

    private final Map<String, Run> finished = new LinkedHashMap<>();

    /** Keeps {@code run} as finished, replacing an earlier run of the same name. */
    public void add(Run run) {
        if (run.testAcc.isEmpty()) {
            throw new IllegalStateException("The run '" + run.name + "' has no finished epoch: call epoch(...) "
                    + "after each epoch before add(...).");
        }
        finished.put(run.name, run);
    }

    /** The finished run {@code name}, or an error that says it did not finish and what to do. */
    public Run get(String name) {
        Run run = finished.get(name);
        if (run == null) {
            throw new IllegalStateException("The run '" + name + "' did not finish, so there is nothing to "
                    + "compare: see the error of the training cell above, and run that cell again."
                    + (finished.isEmpty() ? "" : " Finished runs: " + finished.keySet() + "."));
        }
        return run;
    }

    /** The mean over the epochs of the gap in test accuracy between the finished runs {@code a} and {@code b}. */
    public double meanAccGap(String a, String b) {
        return AccuracyGaps.mean(a, get(a).testAcc, b, get(b).testAcc);
    }

    /** The smallest {@link #meanAccGap} between any two of the runs {@code names}. */
    public double smallestMeanAccGap(String... names) {
        return AccuracyGaps.smallest(names, this::meanAccGap);
    }

    /** The lowest last test accuracy of the finished runs. */
    public double lowestLastAcc() {
        return finished.values().stream().mapToDouble(Run::lastAcc).min().orElseThrow(
                () -> new IllegalStateException("No run has finished, so there is no accuracy to compare."));
    }

    /**
     * One row per finished run: its last training loss and test accuracy, its best test accuracy, its median
     * step time and its time from start to the end of its last epoch; a last row adds up the times.
     */
    public String table() {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%-20s %6s %10s %9s %9s %8s %8s%n",
                "run", "epochs", "train loss", "test acc", "best acc", "ms/step", "time"));
        double total = 0;
        for (Run r : finished.values()) {
            out.append(String.format(Locale.ROOT, "%-20s %6d %10.4f %9.4f %9.4f %8.1f %8s%n", r.name,
                    r.testAcc.size(), r.lastLoss(), r.lastAcc(), r.bestAcc(), 1e3 * r.medianStepSeconds(),
                    duration(r.seconds)));
            total += r.seconds;
        }
        return out.append(String.format(Locale.ROOT, "%-20s %6s %10s %9s %9s %8s %8s%n", "all runs", "", "", "", "",
                "", duration(total))).toString();
    }

    private static String duration(double seconds) {
        long s = Math.round(seconds);
        return s < 60 ? s + " s" : String.format(Locale.ROOT, "%d:%02d min", s / 60, s % 60);
    }

    /** What one run measured, recorded step by step and epoch by epoch. */
    public static final class Run {

        private final String name;
        private final List<Double> trainLoss = new ArrayList<>();
        private final List<Double> testAcc = new ArrayList<>();
        private final Timer stepTimes = new Timer();
        private int steps;
        private final long started = System.nanoTime();
        private double seconds;
        private double epochLoss;
        private long epochExamples;
        private int unequalSteps;

        /** A run named {@code name} ("2 devices", say) that has taken no step yet. */
        public Run(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("A run needs a name, such as \"2 devices\".");
            }
            this.name = name;
        }

        /** The run's name. */
        public String name() {
            return name;
        }

        /** Runs and times one step on {@code examples} examples that returns their summed loss, and returns that loss. */
        public float step(long examples, Supplier<Float> summedLoss) {
            long start = System.nanoTime();
            float loss = summedLoss.get();
            stepTimes.record((System.nanoTime() - start) / 1e9);
            steps++;
            epochLoss += loss;
            epochExamples += examples;
            return loss;
        }

        /** Counts the step just taken as one after which the replicas differed, unless {@code equal}. */
        public void replicasEqual(boolean equal) {
            unequalSteps += equal ? 0 : 1;
        }

        /** Ends an epoch with its test accuracy; its training loss is the mean over the examples of its steps. */
        public void epoch(double accuracy) {
            if (epochExamples == 0) {
                throw new IllegalStateException("The run '" + name + "' took no step in this epoch: the training "
                        + "set is empty (is DATASET_LIMIT 0?).");
            }
            trainLoss.add(epochLoss / epochExamples);
            testAcc.add(accuracy);
            seconds = (System.nanoTime() - started) / 1e9;
            epochLoss = 0;
            epochExamples = 0;
        }

        /** The seconds from the run's start to the end of its last epoch, evaluation included. */
        public double seconds() {
            return seconds;
        }

        /** The steps taken so far. */
        public int steps() {
            return steps;
        }

        /** The mean training loss of each epoch. */
        public List<Double> trainLoss() {
            return Collections.unmodifiableList(trainLoss);
        }

        /** The test accuracy after each epoch. */
        public List<Double> testAcc() {
            return Collections.unmodifiableList(testAcc);
        }

        /** The steps after which the replicas differed. */
        public int unequalSteps() {
            return unequalSteps;
        }

        /** The last epoch's mean training loss. */
        public double lastLoss() {
            return trainLoss.get(trainLoss.size() - 1);
        }

        /** The test accuracy after the last epoch. */
        public double lastAcc() {
            return testAcc.get(testAcc.size() - 1);
        }

        /** The best test accuracy of any epoch. */
        public double bestAcc() {
            return Collections.max(testAcc);
        }

        /** The median time of a step in seconds, which a few steps slowed by other work on the machine do not move. */
        public double medianStepSeconds() {
            return stepTimes.median();
        }
    }
}
