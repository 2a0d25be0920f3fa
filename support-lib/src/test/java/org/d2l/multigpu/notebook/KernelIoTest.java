package org.d2l.multigpu.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class KernelIoTest {

    @Test
    void outputThatClearsItsThreadsInterruptLeavesTheCallersPendingInterrupt() throws Exception {
        AtomicReference<String> outputThread = new AtomicReference<>();
        AtomicBoolean callerInterrupted = new AtomicBoolean();
        Thread caller = new Thread(() -> {
            Thread.currentThread().interrupt(); // Kernel > Interrupt arrived before the output
            KernelIo.run(() -> {
                outputThread.set(Thread.currentThread().getName());
                Thread.interrupted(); // what JeroMQ's send does to the thread that sends
            });
            callerInterrupted.set(Thread.currentThread().isInterrupted());
        }, "trainer");
        caller.start();
        caller.join();
        assertTrue(callerInterrupted.get(), "the training loop must still see the interrupt");
        assertNotEquals("trainer", outputThread.get());
    }

    @Test
    void anInterruptArrivingWhileOutputIsSentIsKeptAndTheOutputCompletes() throws Exception {
        CountDownLatch sending = new CountDownLatch(1);
        AtomicBoolean sent = new AtomicBoolean();
        AtomicBoolean callerInterrupted = new AtomicBoolean();
        Thread caller = new Thread(() -> {
            KernelIo.run(() -> {
                sending.countDown();
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    throw new AssertionError("the output thread must not be interrupted", e);
                }
                sent.set(true);
            });
            callerInterrupted.set(Thread.currentThread().isInterrupted());
        });
        caller.start();
        sending.await();
        caller.interrupt();
        caller.join();
        assertTrue(sent.get(), "the caller waits for its output");
        assertTrue(callerInterrupted.get());
    }

    @Test
    void failuresOfTheOutputReachTheCallerAndNestedCallsRunInPlace() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> KernelIo.run(() -> { throw new IllegalStateException("kernel gone"); }));
        assertEquals("kernel gone", e.getMessage());
        assertEquals(3, KernelIo.call(() -> KernelIo.call(() -> 3)));
    }
}
