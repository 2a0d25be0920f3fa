package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.core.Linear;
import ai.djl.training.loss.Loss;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class ReplicaGradientsTest {

    private static Block linear(NDManager m) {
        Block net = Linear.builder().setUnits(3).build();
        net.initialize(m, DataType.FLOAT32, new Shape(1, 5));
        return net;
    }

    @Test
    void twoReplicasOfIdenticalHalvesHoldHalfOfOneHalfsGradientBitForBit() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            Block net = linear(m);
            NDArray half = m.randomNormal(new Shape(4, 5));
            NDArray labels = m.create(new float[] {0, 2, 1, 2});
            NDArray x = half.concat(half);
            NDArray y = labels.concat(labels);
            Loss loss = Loss.softmaxCrossEntropyLoss();
            ReplicaGradients two = ReplicaGradients.of(net, x, y, loss, 2);
            ReplicaGradients one = ReplicaGradients.of(net, half, labels, loss, 1);
            assertEquals(2, two.replicas());
            assertEquals(2, two.arrays());
            assertEquals(18, two.size());
            assertEquals("weight", two.largest().substring(two.largest().length() - 6));
            for (String name : new String[] {two.largest()}) {
                float[] whole = one.get(0, name);
                float[] halfOfIt = new float[whole.length];
                for (int j = 0; j < whole.length; j++) {
                    halfOfIt[j] = whole[j] / 2; // a power of two: exact, as the loss weight 1/2 is
                }
                assertArrayEquals(halfOfIt, two.get(0, name));
                assertArrayEquals(halfOfIt, two.get(1, name));
            }
        }
    }

    @Test
    void float16SendsTwoBytesAndOneBitAnEighthOfAByteAndAScalePerArray() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            Block net = linear(m);
            ReplicaGradients g = ReplicaGradients.of(net, m.randomNormal(new Shape(6, 5)),
                    m.create(new float[] {0, 1, 2, 0, 1, 2}), Loss.softmaxCrossEntropyLoss(), 2);
            assertArrayEquals(new long[] {36, 36}, g.sentBytes(Compressor.float16(false)));
            long oneBit = (4 + (15 + 7) / 8) + (4 + (3 + 7) / 8); // weight 3 x 5, bias 3
            assertArrayEquals(new long[] {oneBit, oneBit}, g.sentBytes(Compressor.oneBit(true)));
            assertTrue(g.allreduceMs(null, 1, 3) >= 0);
            assertTrue(g.allreduceMs(Compressor.oneBit(true), 0, 1) >= 0);
        }
    }

    @Test
    void refusesMoreReplicasThanExamplesAndNamesThatDoNotExist() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            Block net = linear(m);
            NDArray x = m.randomNormal(new Shape(2, 5));
            NDArray y = m.create(new float[] {0, 1});
            Loss loss = Loss.softmaxCrossEntropyLoss();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ReplicaGradients.of(net, x, y, loss, 3));
            assertTrue(e.getMessage().contains("2 examples over 3 replicas"), e.getMessage());
            ReplicaGradients g = ReplicaGradients.of(net, x, y, loss, 2);
            assertThrows(IllegalArgumentException.class, () -> g.get(0, "nothing"));
            assertThrows(IllegalArgumentException.class, () -> g.allreduceMs(null, 0, 0));
        }
    }
}
