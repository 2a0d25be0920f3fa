package org.d2l.multigpu.parallel;

import ai.djl.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;

/**
 * Runs each replica's share of a step: on a worker thread per device when concurrent (several GPUs),
 * else one replica after another on the calling thread (virtual replicas on one CPU).
 */
final class ReplicaWorkers implements AutoCloseable {

    private final List<ExecutorService> workers = new ArrayList<>();

    ReplicaWorkers(List<Device> devices, boolean concurrent) {
        if (concurrent) {
            for (int i = 0; i < devices.size(); i++) {
                String name = "replica-" + i + "-" + devices.get(i);
                workers.add(Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, name);
                    t.setDaemon(true);
                    return t;
                }));
            }
        }
    }

    /** Whether replicas run concurrently, one worker thread per device. */
    boolean concurrent() {
        return !workers.isEmpty();
    }

    /** Runs {@code work} for replicas 0 to {@code active - 1} and returns when all are done. */
    void runEach(int active, IntConsumer work) {
        if (workers.isEmpty()) {
            for (int i = 0; i < active; i++) {
                work.accept(i);
            }
            return;
        }
        List<Future<?>> pending = new ArrayList<>();
        for (int i = 0; i < active; i++) {
            int r = i;
            pending.add(workers.get(r).submit(() -> work.accept(r)));
        }
        joinAll(pending);
    }

    /**
     * Waits for every replica's work, even when the calling thread is interrupted meanwhile (the
     * interrupt is kept for the loop to see at the next step), so that no worker still runs when the
     * gradient collector closes; then rethrows the first failure.
     */
    private static void joinAll(List<Future<?>> pending) {
        boolean interrupted = false;
        RuntimeException failure = null;
        for (Future<?> f : pending) {
            while (true) {
                try {
                    f.get();
                    break;
                } catch (InterruptedException ex) {
                    interrupted = true;
                } catch (ExecutionException ex) {
                    Throwable c = ex.getCause();
                    if (failure == null) {
                        failure = c instanceof RuntimeException re ? re
                                : new IllegalStateException("A replica failed: " + c, c);
                    }
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Stops the worker threads. */
    @Override
    public void close() {
        workers.forEach(ExecutorService::shutdownNow);
    }
}
