package org.d2l.multigpu.checkpoint;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes a run's checkpoints to its {@link CheckpointStore}, on a background thread when the settings ask
 * for it: one write at a time, the next waits for the one before, and {@link #close()} for the last. A write
 * that failed is reported at the next checkpoint or at the end of the run.
 */
public final class CheckpointWriter implements AutoCloseable {

    private final CheckpointStore store;
    private final ExecutorService thread;
    private Future<?> pending;

    /** A writer into {@code settings}' directory. */
    public CheckpointWriter(CheckpointPolicy settings) {
        this.store = new CheckpointStore(settings);
        this.thread = settings.inBackground() ? Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "checkpoint-writer");
            t.setDaemon(true);
            return t;
        }) : null;
    }

    /** The store written to. */
    public CheckpointStore store() {
        return store;
    }

    /** Writes {@code c}: at once, or after the previous write on the background thread. */
    public void write(Checkpoint c) {
        awaitPending();
        if (thread == null) {
            store.write(c);
        } else {
            pending = thread.submit(() -> store.write(c));
        }
    }

    /** Waits for the write in progress, if any, and rethrows its failure. */
    public void awaitPending() {
        Future<?> p = pending;
        pending = null;
        if (p == null) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    p.get();
                    return;
                } catch (InterruptedException ex) {
                    interrupted = true; // the write finishes first: a half-written checkpoint helps no one
                }
            }
        } catch (ExecutionException ex) {
            Throwable c = ex.getCause();
            throw c instanceof RuntimeException re ? re : new IllegalStateException("Checkpoint write failed: " + c, c);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits for the last write and stops the background thread. */
    @Override
    public void close() {
        try {
            awaitPending();
        } finally {
            if (thread != null) {
                thread.shutdown();
            }
        }
    }
}
