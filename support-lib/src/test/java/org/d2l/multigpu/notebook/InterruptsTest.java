package org.d2l.multigpu.notebook;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.d2l.multigpu.loop.TrainingInterruptedException;
import org.junit.jupiter.api.Test;

class InterruptsTest {

    @Test
    void theOneLineCheckOfAHandWrittenLoopThrowsAndClearsTheInterrupt() {
        Thread.currentThread().interrupt();
        TrainingInterruptedException e = assertThrows(TrainingInterruptedException.class,
                () -> Interrupts.check(3, 120));
        assertTrue(e.getMessage().contains("interrupted in epoch 3 after step 120"), e.getMessage());
        assertTrue(e.getMessage().contains("parameters after step 120"), e.getMessage());
        assertFalse(Thread.currentThread().isInterrupted(), "the next training call must not stop at once");
        Interrupts.check(3, 121); // no interrupt: nothing happens
    }
}
