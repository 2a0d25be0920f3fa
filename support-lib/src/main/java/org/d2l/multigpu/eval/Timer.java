package org.d2l.multigpu.eval;

import java.util.ArrayList;
import java.util.List;

/** Records running times, as the book's {@code Timer}. */
public class Timer {

    private final List<Double> times = new ArrayList<>();
    private long start;

    /** Creates a timer and starts it. */
    public Timer() {
        start();
    }

    /** Starts (or restarts) the timer. */
    public void start() {
        start = System.nanoTime();
    }

    /** Stops the timer, records the time since {@link #start} and returns it in seconds. */
    public double stop() {
        double s = (System.nanoTime() - start) / 1e9;
        times.add(s);
        return s;
    }

    /** Records a time measured elsewhere, in seconds. */
    public void record(double seconds) {
        times.add(seconds);
    }

    /** The average of the recorded times in seconds. */
    public double avg() {
        return times.isEmpty() ? 0 : sum() / times.size();
    }

    /**
     * The median of the recorded times in seconds (0 when none): unlike the average, one step slowed
     * by something else on the machine barely moves it.
     */
    public double median() {
        if (times.isEmpty()) {
            return 0;
        }
        double[] sorted = times.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /** The sum of the recorded times in seconds. */
    public double sum() {
        return times.stream().mapToDouble(Double::doubleValue).sum();
    }

    /** The recorded times in seconds, oldest first. */
    public List<Double> times() {
        return List.copyOf(times);
    }
}
