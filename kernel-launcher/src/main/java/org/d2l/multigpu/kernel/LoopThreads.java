package org.d2l.multigpu.kernel;

import java.util.logging.Logger;

import org.rapaio.jupyter.kernel.channels.LoopThread;

/**
 * Makes sure that a rapaio channel's polling thread really loops. rapaio's {@code LoopThread.start()}
 * starts the thread before it sets {@code running = true}: a thread that reads the flag first ends at
 * once, and its channel never answers. A thread seen sleeping between two polls is looping; one that
 * has ended is replaced by a new thread with the same loop body, its flag set before it starts (a
 * replacement started through {@code start()} alone would race again, and on a 2-core Intel Xeon lost
 * six times in a row).
 */
final class LoopThreads {

    private static final Logger LOG = Logger.getLogger(LoopThreads.class.getSimpleName());
    private static final long SETTLE_MILLIS = 20_000;

    private LoopThreads() {
    }

    /** Returns once the {@code loopThread} of {@code channel} is looping, restarting it where it ended at start. */
    static void ensureLooping(Object channel) {
        for (int restarts = 0; ; restarts++) {
            Thread t = (Thread) PrivateFields.get(channel, "loopThread");
            if (settle(t) != Thread.State.TERMINATED) {
                return;
            }
            if (restarts == 5) {
                throw new IllegalStateException(t.getName() + " ended at start " + (restarts + 1) + " times in a row");
            }
            LoopThread again = new LoopThread(t.getName(), (Long) PrivateFields.get(t, "sleep"),
                    (Runnable) PrivateFields.get(t, "loopBody"));
            PrivateFields.set(again, "running", true); // before the thread can read it
            PrivateFields.set(channel, "loopThread", again);
            again.start();
            LOG.warning(t.getName() + " had ended at start (rapaio LoopThread race); started it again");
        }
    }

    /** Waits until {@code t} sleeps between polls (it loops) or has ended; gives up after a while (it then runs). */
    private static Thread.State settle(Thread t) {
        long deadline = System.nanoTime() + SETTLE_MILLIS * 1_000_000;
        while (true) {
            Thread.State s = t.getState();
            if (s == Thread.State.TIMED_WAITING || s == Thread.State.TERMINATED || System.nanoTime() > deadline) {
                return s;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return s;
            }
        }
    }
}
