package org.d2l.multigpu.lesson;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.d2l.multigpu.eval.Timer;
import org.d2l.multigpu.plot.LiveFigure;

/**
 * The training runs of a from-scratch lesson, by name: each run's test accuracy per epoch, drawn into a
 * live figure as it comes, and the time of each step.
 */
public final class RunLog {

    private final Map<String, Run> runs = new LinkedHashMap<>();
    private final LiveFigure figure;

    /** A log that draws each run's test accuracy into {@code figure} (null: draws nothing). */
    public RunLog(LiveFigure figure) {
        this.figure = figure;
    }

    /** Starts the run {@code name} of {@code numEpochs} epochs, replacing an earlier run of that name. */
    public Run start(String name, int numEpochs) {
        Run run = new Run(name, figure);
        if (figure != null) {
            figure.begin(name, numEpochs);
        }
        runs.put(name, run);
        return run;
    }

    /** The run {@code name} with one epoch at least, or an error that says it did not finish and what to do. */
    public Run get(String name) {
        Run run = runs.get(name);
        if (run == null || run.testAcc.isEmpty()) {
            throw new IllegalStateException("The run '" + name + "' did not finish an epoch, so there is nothing"
                    + " to compare: see the error of the training cell above, and run that cell again."
                    + (runs.isEmpty() ? "" : " Runs: " + runs.keySet() + "."));
        }
        return run;
    }

    /** The mean over the epochs of the gap in test accuracy between the runs {@code a} and {@code b}. */
    public double meanAccGap(String a, String b) {
        return AccuracyGaps.mean(a, get(a).testAcc, b, get(b).testAcc);
    }

    /** The smallest {@link #meanAccGap} between any two of the runs {@code names}. */
    public double smallestMeanAccGap(String... names) {
        return AccuracyGaps.smallest(names, this::meanAccGap);
    }

    /**
     * One row per run with an epoch: its last and best test accuracy, its median step time and its time
     * from start to the end of its last epoch; a last row adds up the times.
     */
    public String table() {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%-20s %6s %9s %9s %8s %9s%n",
                "run", "epochs", "test acc", "best acc", "ms/step", "time"));
        double total = 0;
        for (Run r : runs.values()) {
            if (r.testAcc.isEmpty()) {
                continue;
            }
            out.append(String.format(Locale.ROOT, "%-20s %6d %9.4f %9.4f %8.1f %9s%n", r.name,
                    r.testAcc.size(), r.lastAcc(), r.bestAcc(), 1e3 * r.medianStepSeconds(), duration(r.seconds)));
            total += r.seconds;
        }
        return out.append(String.format(Locale.ROOT, "%-20s %6s %9s %9s %8s %9s%n", "all runs", "", "", "", "",
                duration(total))).toString();
    }

    private static String duration(double seconds) {
        long s = Math.round(seconds);
        return s < 60 ? s + " s" : String.format(Locale.ROOT, "%d:%02d min", s / 60, s % 60);
    }

    /** What one run measured, step by step and epoch by epoch. */
    public static final class Run {

        private final String name;
        private final LiveFigure figure;
        private final List<Double> testAcc = new ArrayList<>();
        private final Timer stepTimes = new Timer();
        private final long started = System.nanoTime();
        private int steps;
        private int stepsThisEpoch;
        private double seconds;

        private Run(String name, LiveFigure figure) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("A run needs a name, such as \"2 devices\".");
            }
            this.name = name;
            this.figure = figure;
        }

        /** The run's name. */
        public String name() {
            return name;
        }

        /** Runs and times one training step. */
        public void step(Runnable step) {
            long start = System.nanoTime();
            step.run();
            stepTimes.record((System.nanoTime() - start) / 1e9);
            steps++;
            stepsThisEpoch++;
        }

        /** Ends an epoch with its test accuracy, and draws it. */
        public void epoch(double accuracy) {
            if (stepsThisEpoch == 0) {
                throw new IllegalStateException("The run '" + name + "' took no step in this epoch: the training "
                        + "set is empty (is DATASET_LIMIT 0?).");
            }
            testAcc.add(accuracy);
            seconds = (System.nanoTime() - started) / 1e9;
            stepsThisEpoch = 0;
            if (figure != null) {
                figure.add(name, testAcc.size(), accuracy);
            }
        }

        /** The seconds from the run's start to the end of its last epoch, evaluation included. */
        public double seconds() {
            return seconds;
        }

        /** The steps taken so far. */
        public int steps() {
            return steps;
        }

        /** The test accuracy after each epoch. */
        public List<Double> testAcc() {
            return Collections.unmodifiableList(testAcc);
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
