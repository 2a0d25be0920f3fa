package org.d2l.multigpu.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FromScratchTest {

    private NDManager manager;

    @BeforeEach
    void setUp() {
        Djl.setup();
        manager = NDManager.newBaseManager(Device.cpu());
    }

    @AfterEach
    void tearDown() {
        manager.close();
    }

    private static List<Device> cpus(int k) {
        return Collections.nCopies(k, Device.cpu());
    }

    @Test
    void allreduceLeavesTheSumInEveryCopy() {
        NDArray a = manager.create(new float[] {1, 2});
        NDArray b = manager.create(new float[] {10, 20});
        NDArray c = manager.create(new float[] {100, 200});
        FromScratch.allreduce(List.of(a, b, c));
        for (NDArray x : List.of(a, b, c)) {
            assertArrayEquals(new float[] {111, 222}, x.toFloatArray());
        }
    }

    @Test
    void getParamsMakesIndependentCopiesWithGradients() {
        List<NDArray> params = List.of(manager.ones(new Shape(2)));
        List<NDArray> copy = FromScratch.getParams(params, Device.cpu(), manager);
        copy.get(0).addi(1);
        assertArrayEquals(new float[] {1, 1}, params.get(0).toFloatArray());
        assertTrue(copy.get(0).hasGradient());
    }

    @Test
    void splitBatchGivesUnevenShardsThatDifferByAtMostOne() {
        NDArray x = manager.arange(14f).reshape(7, 2);
        NDArray y = manager.arange(7f);
        FromScratch.Shards s = FromScratch.splitBatch(x, y, cpus(2));
        assertEquals(new Shape(4, 2), s.x().get(0).getShape());
        assertEquals(new Shape(3, 2), s.x().get(1).getShape());
        assertArrayEquals(new float[] {4, 5, 6}, s.y().get(1).toFloatArray());
    }

    @Test
    void splitBatchRejectsFewerExamplesThanDevices() {
        NDArray x = manager.zeros(new Shape(3, 2));
        NDArray y = manager.zeros(new Shape(3));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FromScratch.splitBatch(x, y, cpus(4)));
        assertTrue(e.getMessage().contains("batch size of at least 4"), e.getMessage());
    }

    @Test
    void trainBatchOnTwoReplicasMatchesOneReplicaAndKeepsCopiesEqual() {
        manager.getEngine().setRandomSeed(3);
        List<NDArray> params = LeNet.initParams(manager);
        NDArray x = manager.randomUniform(0, 1, new Shape(8, 1, 28, 28));
        NDArray y = manager.create(new float[] {0, 1, 2, 3, 4, 5, 6, 7});
        Loss loss = Loss.softmaxCrossEntropyLoss();
        List<List<NDArray>> one = List.of(FromScratch.getParams(params, Device.cpu(), manager));
        List<List<NDArray>> two = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            two.add(FromScratch.getParams(params, Device.cpu(), manager));
        }
        for (int step = 0; step < 3; step++) {
            FromScratch.trainBatch(x, y, one, cpus(1), 0.5f, loss, LeNet::lenet);
            FromScratch.trainBatch(x, y, two, cpus(2), 0.5f, loss, LeNet::lenet);
        }
        for (int j = 0; j < params.size(); j++) {
            assertArrayEquals(two.get(0).get(j).toFloatArray(), two.get(1).get(j).toFloatArray(), 0f);
            assertArrayEquals(one.get(0).get(j).toFloatArray(), two.get(0).get(j).toFloatArray(), 1e-5f);
        }
        // the copies moved away from the initial values
        assertTrue(one.get(0).get(0).sub(params.get(0)).abs().max().getFloat() > 0);
    }

    /** k arrays of shape (rows, 3) with distinct values, on the CPU. */
    private List<NDArray> spread(int k, int rows) {
        List<NDArray> data = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            data.add(manager.arange(rows * 3f).reshape(rows, 3).mul(i + 1).add(0.25f * i));
        }
        return data;
    }

    @Test
    void ringAllreduceEqualsTheNaiveAllreduceForOneToFiveDevicesAndOddSizes() {
        for (int k = 1; k <= 5; k++) {
            for (int rows : new int[] {1, 3, 7}) { // 3, 9 and 21 elements: chunks of unequal size
                List<NDArray> ring = spread(k, rows);
                List<NDArray> naive = spread(k, rows);
                FromScratch.ringAllreduce(ring);
                FromScratch.allreduce(naive);
                for (int i = 0; i < k; i++) {
                    assertEquals(new Shape(rows, 3), ring.get(i).getShape());
                    assertArrayEquals(naive.get(0).toFloatArray(), ring.get(i).toFloatArray(), 1e-4f,
                            "k=" + k + ", " + rows * 3 + " elements, device " + i);
                }
            }
        }
    }

    @Test
    void ringAllreduceSendsTwoTimesKMinusOneOverKTimesNPerDevice() {
        int k = 4;
        List<NDArray> data = spread(k, 8); // N = 24, divisible by 4: 2 x 3/4 x 24 = 36 per device
        FromScratch.Traffic t = FromScratch.ringAllreduce(data);
        for (int i = 0; i < k; i++) {
            assertEquals(36, t.sent()[i], "device " + i);
            assertEquals(36, t.received()[i], "device " + i);
        }
        FromScratch.Traffic naive = FromScratch.allreduce(spread(k, 8));
        assertEquals(3 * 24, naive.received()[0]); // (k-1) x N into device 0
        assertEquals(3 * 24, naive.sent()[0]); // and as much back out
        assertEquals(24, naive.sent()[1]);
    }

    @Test
    void ringAllreduceTrafficWithUnevenChunksIsTwoNMinusTheTwoChunksADeviceNeverSends() {
        for (int k = 1; k <= 5; k++) {
            for (int rows : new int[] {1, 3, 7}) {
                long n = rows * 3L;
                long[] c = FromScratch.chunkSizes(n, k);
                FromScratch.Traffic t = FromScratch.ringAllreduce(spread(k, rows));
                long total = 0;
                for (int i = 0; i < k; i++) {
                    long expected = 2 * n - c[(i + 1) % k] - c[(i + 2) % k];
                    assertEquals(expected, t.sent()[i], "k=" + k + ", N=" + n + ", device " + i);
                    total += t.sent()[i];
                }
                assertEquals(2L * (k - 1) * n, total, "k=" + k + ", N=" + n);
                assertEquals(total, t.totalSent());
            }
        }
        assertArrayEquals(new long[] {3, 3, 2, 2}, FromScratch.chunkSizes(10, 4));
        assertArrayEquals(new long[] {1, 1, 0}, FromScratch.chunkSizes(2, 3));
    }

    @Test
    void ringAllreduceRejectsArraysOfDifferentShapes() {
        List<NDArray> data = List.of(manager.zeros(new Shape(3)), manager.zeros(new Shape(4)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FromScratch.ringAllreduce(data));
        assertTrue(e.getMessage().contains("same shape"), e.getMessage());
    }
}
