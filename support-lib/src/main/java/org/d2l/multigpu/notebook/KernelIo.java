package org.d2l.multigpu.notebook;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs output to the notebook (figures, progress lines) on a thread of its own, so that the thread that
 * trains keeps a Kernel &gt; Interrupt. The Java kernels send output through ZeroMQ on the thread that
 * prints or displays, and ZeroMQ (JeroMQ 0.6) turns a pending interrupt of that thread into a failed send
 * and clears it: a training loop that showed a figure or a progress line after the interrupt arrived never
 * saw it and trained on. The caller waits for the output and keeps its interrupt status, whether it was
 * interrupted before or during the wait.
 */
public final class KernelIo {

    private static final ExecutorService IO = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "d2l-kernel-io");
        t.setDaemon(true);
        return t;
    });
    private static volatile Thread ioThread;

    private KernelIo() {}

    /** Runs {@code output} on the output thread and waits for it; the caller's interrupt status is kept. */
    public static void run(Runnable output) {
        call(() -> {
            output.run();
            return null;
        });
    }

    /** Calls {@code output} on the output thread and returns its result; the caller's interrupt status is kept. */
    public static <T> T call(Callable<T> output) {
        if (Thread.currentThread() == ioThread) {
            return callHere(output);
        }
        Future<T> done = IO.submit(() -> {
            ioThread = Thread.currentThread();
            return output.call();
        });
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return done.get();
                } catch (InterruptedException ex) {
                    interrupted = true; // keep waiting: the output belongs to this cell
                } catch (ExecutionException ex) {
                    Throwable cause = ex.getCause();
                    if (cause instanceof RuntimeException re) {
                        throw re;
                    }
                    if (cause instanceof Error e) {
                        throw e;
                    }
                    throw new IllegalStateException("Output to the notebook failed: " + cause, cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Prints {@code text} (no line break added) to {@code System.out} of the caller, from the output thread. */
    public static void print(String text) {
        java.io.PrintStream out = System.out; // the kernel's stream for this cell, as the caller sees it
        run(() -> {
            out.print(text);
            out.flush();
        });
    }

    private static <T> T callHere(Callable<T> output) {
        try {
            return output.call();
        } catch (RuntimeException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new IllegalStateException("Output to the notebook failed: " + ex, ex);
        }
    }
}
