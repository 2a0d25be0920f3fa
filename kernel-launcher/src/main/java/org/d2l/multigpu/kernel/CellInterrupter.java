package org.d2l.multigpu.kernel;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.logging.Logger;

import org.rapaio.jupyter.kernel.core.RapaioKernel;
import org.rapaio.jupyter.kernel.core.java.RapaioExecutionControl;
import org.rapaio.jupyter.kernel.core.java.RapaioExecutionControlProvider;

/**
 * Kernel &gt; Interrupt on rapaio: interrupts the thread that runs the cell and nothing else, so code that
 * stops on an interrupt (the training loops of the support jar) ends the cell itself, with its own message,
 * and the kernel runs the next cell. rapaio's own handler cancels the cell, then shuts its executor and
 * JShell down, after which no cell runs. A cell whose code ignores the interrupt is ended by a second
 * Interrupt given at least {@link #ESCALATE_AFTER_NANOS} later (its thread then runs on in the background).
 */
final class CellInterrupter {

    /** Name prefix of the threads of rapaio's cell executor ({@code RapaioExecutionControl}). */
    static final String CELL_THREAD_PREFIX = "Engine-thread-";
    static final long ESCALATE_AFTER_NANOS = 2_000_000_000L;

    private static final Logger LOG = Logger.getLogger(CellInterrupter.class.getSimpleName());

    private final Supplier<Collection<Future<?>>> runningCells;
    private final long escalateAfterNanos;
    private Set<Future<?>> interruptedCells = Set.of();
    private long lastInterrupt;

    CellInterrupter(Supplier<Collection<Future<?>>> runningCells, long escalateAfterNanos) {
        this.runningCells = runningCells;
        this.escalateAfterNanos = escalateAfterNanos;
    }

    /** An interrupter for the cells of {@code kernel}. */
    static CellInterrupter of(RapaioKernel kernel) {
        return new CellInterrupter(runningFutures(kernel), ESCALATE_AFTER_NANOS);
    }

    /** Interrupts the running cell's thread; ends a cell that a previous interrupt did not stop. */
    synchronized void interrupt() {
        List<Thread> busy = busyCellThreads();
        busy.forEach(Thread::interrupt);
        long now = System.nanoTime();
        Collection<Future<?>> running = runningCells.get();
        int ended = 0;
        if (now - lastInterrupt >= escalateAfterNanos) {
            for (Future<?> f : running) {
                if (interruptedCells.contains(f) && f.cancel(true)) {
                    ended++;
                }
            }
        }
        Set<Future<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        seen.addAll(running);
        interruptedCells = seen;
        lastInterrupt = now;
        LOG.info("Interrupt: interrupted " + names(busy)
                + (ended > 0 ? "; ended " + ended + " cell(s) still running after an earlier interrupt" : ""));
    }

    /** The cell executor's threads that run a task now (an idle one waits for work in the pool). */
    static List<Thread> busyCellThreads() {
        List<Thread> busy = new ArrayList<>();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            if (e.getKey().getName().startsWith(CELL_THREAD_PREFIX) && !waitsForWork(e.getValue())) {
                busy.add(e.getKey());
            }
        }
        return busy;
    }

    private static boolean waitsForWork(StackTraceElement[] stack) {
        for (StackTraceElement f : stack) {
            if (f.getClassName().equals("java.util.concurrent.ThreadPoolExecutor") && f.getMethodName().equals("getTask")) {
                return true;
            }
        }
        return false;
    }

    private static String names(List<Thread> threads) {
        if (threads.isEmpty()) {
            return "no running cell";
        }
        List<String> names = new ArrayList<>();
        threads.forEach(t -> names.add(t.getName()));
        return String.join(", ", names);
    }

    /** The futures of the cells rapaio runs now; none when its internals are not those of 3.0.1. */
    @SuppressWarnings("unchecked")
    private static Supplier<Collection<Future<?>>> runningFutures(RapaioKernel kernel) {
        try {
            Object engine = kernel.javaEngine();
            RapaioExecutionControlProvider provider =
                    (RapaioExecutionControlProvider) PrivateFields.get(engine, "controlProvider");
            RapaioExecutionControl control = provider.getRegisteredControl((String) PrivateFields.get(engine, "executionId"));
            Map<String, Future<?>> running = (Map<String, Future<?>>) PrivateFields.get(control, "running");
            return () -> List.copyOf(running.values());
        } catch (RuntimeException ex) {
            LOG.warning("A second Interrupt cannot end a cell: " + ex.getMessage());
            return List::of;
        }
    }
}
