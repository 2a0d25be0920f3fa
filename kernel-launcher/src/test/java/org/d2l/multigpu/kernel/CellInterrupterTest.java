package org.d2l.multigpu.kernel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CellInterrupterTest {

    private static final AtomicInteger ID = new AtomicInteger();

    private static ExecutorService cellPool() {
        return Executors.newCachedThreadPool(r -> new Thread(r, CellInterrupter.CELL_THREAD_PREFIX + "test-" + ID.getAndIncrement()));
    }

    @Test
    void interruptsTheThreadRunningTheCellAndNoOther() throws Exception {
        ExecutorService pool = cellPool();
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean cellSawInterrupt = new AtomicBoolean();
        Future<?> cell = pool.submit(() -> {
            started.countDown();
            while (!Thread.currentThread().isInterrupted()) {
                Thread.onSpinWait(); // a training loop between two checks
            }
            cellSawInterrupt.set(true);
        });
        Thread bystander = new Thread(() -> {
            try {
                Thread.sleep(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "not-a-cell");
        bystander.start();
        started.await();
        new CellInterrupter(() -> List.of(cell), Long.MAX_VALUE).interrupt();
        cell.get(10, TimeUnit.SECONDS);
        assertTrue(cellSawInterrupt.get());
        assertFalse(cell.isCancelled(), "the cell ends by itself, with its own message");
        assertFalse(bystander.isInterrupted());
        bystander.interrupt();
        pool.shutdownNow();
    }

    @Test
    void aSecondInterruptEndsACellWhoseCodeIgnoresTheFirst() throws Exception {
        ExecutorService pool = cellPool();
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean stop = new AtomicBoolean();
        Future<?> stubborn = pool.submit(() -> {
            started.countDown();
            while (!stop.get()) {
                Thread.interrupted(); // swallows every interrupt
            }
        });
        started.await();
        CellInterrupter interrupter = new CellInterrupter(() -> List.of(stubborn), 0);
        interrupter.interrupt();
        assertFalse(stubborn.isDone(), "one interrupt only interrupts");
        interrupter.interrupt();
        assertTrue(stubborn.isCancelled(), "the second ends the cell");
        stop.set(true);
        pool.shutdownNow();
    }
}
