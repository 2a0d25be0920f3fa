package org.d2l.multigpu.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Small deterministic Fashion-MNIST-shaped minibatches for the tests. */
public final class SyntheticData {

    private SyntheticData() {}

    /** {@code count} minibatches of {@code size} images (1, 28, 28) whose labels depend on the pixels. */
    public static List<Minibatch> minibatches(int count, int size, long seed) {
        Random rnd = new Random(seed);
        List<Minibatch> out = new ArrayList<>();
        for (int b = 0; b < count; b++) {
            float[] x = new float[size * 28 * 28];
            float[] y = new float[size];
            for (int i = 0; i < size; i++) {
                int label = rnd.nextInt(10);
                y[i] = label;
                for (int j = 0; j < 28 * 28; j++) {
                    // a bright band whose row depends on the label, plus noise: learnable
                    float band = (j / 28) / 3 == label ? 1f : 0f;
                    x[i * 784 + j] = 0.5f * band + 0.3f * rnd.nextFloat();
                }
            }
            out.add(new Minibatch(x, new long[] {size, 1, 28, 28}, y));
        }
        return out;
    }
}
