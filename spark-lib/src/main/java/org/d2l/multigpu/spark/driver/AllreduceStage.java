package org.d2l.multigpu.spark.driver;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.spark.DriverLink;
import org.d2l.multigpu.spark.RankResult;

/**
 * One barrier stage of {@link AllreduceTrainer}, running the epochs of a fit from {@code firstEpoch} (one Spark job
 * on a thread of its own), and the driver's end of its ranks' lines, where their epochs arrive as they finish.
 */
final class AllreduceStage {

    private static final Pattern RANK_FAILED = Pattern.compile("Epoch \\d+, rank \\d+ failed: [^\\n]*");
    /** The threads that wait for the stages' Spark jobs, so that the driver can read the ranks' reports meanwhile. */
    private static final ExecutorService STAGES = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "d2l-allreduce-stage");
        t.setDaemon(true);
        return t;
    });

    /** A stage that failed: its reason in the failing rank's own words when it said them. */
    static final class FailedException extends Exception {
        private static final long serialVersionUID = 1L;

        FailedException(String reason, Throwable cause) {
            super(reason, cause);
        }
    }

    private final JavaSparkContext sc;
    private final String group;
    private final int partitions;
    private final Duration timeout;
    private final int firstEpoch;
    private final DriverLink.Server link;
    private final Future<?> job;
    private final Map<Integer, List<RankResult>> arrived = new HashMap<>();
    private final int[] reported;
    private long lastNanos = System.nanoTime();
    private double secondsOfLastEpoch;

    /**
     * Starts the stage of the epochs from {@code firstEpoch} on {@code partitions} ranks: the driver listens for
     * their reports, and {@code job}, given where it listens, is the Spark job to run on a thread of its own.
     */
    AllreduceStage(JavaSparkContext sc, String group, int partitions, Duration timeout, int firstEpoch,
            Function<DriverLink.Address, Runnable> job) {
        this.sc = sc;
        this.group = group;
        this.partitions = partitions;
        this.timeout = timeout;
        this.firstEpoch = firstEpoch;
        this.reported = new int[partitions];
        try {
            link = new DriverLink.Server(sc.getConf().get("spark.driver.host", "localhost"), timeout);
        } catch (IOException ex) {
            throw new IllegalStateException("The driver cannot listen for its ranks' reports: " + ex.getMessage(), ex);
        }
        this.job = STAGES.submit(job.apply(link.address()));
    }

    /** The seconds from the previous epoch's end (or the stage's start) to the last epoch's end. */
    double secondsOfLastEpoch() {
        return secondsOfLastEpoch;
    }

    /**
     * Every rank's result of {@code epoch}, once all have arrived; a failed or ended stage throws, and an interrupt
     * of the waiting thread stops the ranks after their step and throws InterruptedException.
     */
    List<RankResult> awaitEpoch(int epoch) throws FailedException, InterruptedException {
        while (true) {
            List<RankResult> got = arrived.getOrDefault(epoch, List.of());
            if (got.size() == partitions) {
                arrived.remove(epoch);
                long now = System.nanoTime();
                secondsOfLastEpoch = (now - lastNanos) / 1e9;
                lastNanos = now;
                return new ArrayList<>(got);
            }
            Object report;
            try {
                report = link.reports().poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException ex) {
                interrupted();
                return null; // not reached: interrupted() throws
            }
            if (Thread.currentThread().isInterrupted()) {
                interrupted();
            }
            if (report instanceof RankResult r) {
                int e = firstEpoch + reported[r.rank()]++;
                arrived.computeIfAbsent(e, x -> new ArrayList<>()).add(r);
            } else if (report == null && job.isDone()) {
                try {
                    link.awaitLinesClosed(5_000); // reports still on their way to the queue
                } catch (InterruptedException ex) {
                    interrupted();
                }
                if (link.reports().isEmpty()) {
                    throw new FailedException(failure(epoch), cause());
                }
            } else if (report instanceof Exception ex) {
                stopAndWait();
                throw new FailedException("the driver lost a rank's reports: " + ex.getMessage(), ex);
            }
        }
    }

    /** An interrupt of the waiting thread: the ranks stop after their step. */
    private void interrupted() throws InterruptedException {
        stopAndWait();
        throw new InterruptedException("the fit was interrupted");
    }

    private String failure(int epoch) {
        Throwable c = cause();
        return c == null ? "the stage ended before epoch " + epoch + " did" : reason(c);
    }

    private Throwable cause() {
        try {
            job.get();
            return null;
        } catch (ExecutionException ex) {
            return ex.getCause();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return ex;
        }
    }

    /** Asks the ranks to stop after their current step and waits until the stage has ended. */
    void stopAndWait() {
        link.stop();
        boolean interrupted = Thread.interrupted();
        try {
            job.get(timeout.toMillis() * 2 + 60_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            interrupted = true;
        } catch (ExecutionException ex) {
            // the stage failed: Spark has ended its job already, which is the end we waited for
        } catch (TimeoutException ex) {
            sc.cancelJobGroup(group); // stuck: cancel what is left of it
        } finally {
            link.close();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The failing rank's own words when a task said them, else the first line of Spark's message. */
    private static String reason(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            Matcher m = RANK_FAILED.matcher(String.valueOf(t.getMessage()));
            if (m.find()) {
                return m.group();
            }
        }
        String msg = String.valueOf(ex.getMessage());
        return msg.lines().findFirst().orElse(msg);
    }
}
