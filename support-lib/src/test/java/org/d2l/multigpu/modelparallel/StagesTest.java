package org.d2l.multigpu.modelparallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.d2l.multigpu.runtime.IntraOpThreads;
import org.d2l.multigpu.runtime.WithCpuManager;
import org.junit.jupiter.api.Test;

class StagesTest extends WithCpuManager {

    @Test
    void stagesRunAtOnceWithOneTorchThreadEachAndPassArraysOverLinks() {
        int before = IntraOpThreads.current();
        Link link = new Link(Device.cpu(), manager);
        CountDownLatch both = new CountDownLatch(2);
        int[] threads = new int[2];
        float[] received = new float[1];
        try (Stages stages = Stages.of(2)) {
            stages.run(s -> {
                both.countDown();
                try {
                    assertTrue(both.await(10, TimeUnit.SECONDS), "the other stage never started");
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                threads[s] = IntraOpThreads.current();
                if (s == 0) {
                    link.send(manager.create(new float[] {1, 2, 3}).mul(2));
                } else {
                    received[0] = link.receive().sum().getFloat();
                }
            });
        }
        assertArrayEquals(new int[] {1, 1}, threads);
        assertEquals(12f, received[0]);
        assertEquals(12, link.bytesSent());
        assertEquals(before, IntraOpThreads.current());
    }

    @Test
    void aFailingStageStopsTheOthersAndIsNamed() {
        Link never = new Link(Device.cpu(), manager);
        try (Stages stages = Stages.of(2)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> stages.run(s -> {
                if (s == 1) {
                    throw new IllegalArgumentException("boom");
                }
                never.receive(); // would wait for minutes, but the failure of stage 1 interrupts it
            }));
            assertTrue(e.getMessage().contains("stage 1") && e.getMessage().contains("boom"), e.getMessage());
        }
    }

    @Test
    void aLinkDeliversCopiesOutsideTheSendersGraph() {
        Link link = new Link(Device.cpu(), manager);
        NDArray x = manager.create(new float[] {1, 2});
        x.setRequiresGradient(true);
        link.send(x);
        NDArray y = link.receive();
        assertArrayEquals(new float[] {1, 2}, y.toFloatArray());
        assertTrue(!y.hasGradient());
        y.addi(1);
        assertArrayEquals(new float[] {1, 2}, x.toFloatArray());
        assertEquals(0, link.waiting());
    }
}
