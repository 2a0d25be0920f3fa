package org.d2l.multigpu.notebook;

import java.util.List;
import org.d2l.multigpu.loop.TrainingInterruptedException;

/** Kernel &gt; Interrupt for a training loop written in a notebook cell, as the from-scratch lesson writes one. */
public final class Interrupts {

    private Interrupts() {}

    /**
     * Throws a {@link TrainingInterruptedException} when the current thread has been interrupted,
     * clearing the interrupt so that the next training call in the same thread runs, and says so in the
     * cell: the one line a hand-written training loop needs, called before each step.
     */
    public static void check(int epoch, long stepsDone) {
        if (Thread.interrupted()) {
            TrainingInterruptedException stop = new TrainingInterruptedException(epoch, stepsDone, List.of(),
                    "Run the training cell again to start a new run.");
            CellOutput.println(stop.getMessage()); // JJava has ended the cell already and drops what it throws
            throw stop;
        }
        CellOutput.remember();
    }
}
