package org.d2l.multigpu.data;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.Dataset;
import java.util.ArrayList;
import java.util.List;

/**
 * Training data that differ between workers ("non-IID"), as when every machine holds the data of its
 * own source: the examples reordered so that, dealt round robin to {@code k} workers (worker p takes
 * minibatches p, p + k, p + 2k, ...), worker p sees only the classes c with c mod k == p.
 */
public final class NonIid {

    private NonIid() {}

    /**
     * Every example of {@code dataset} (in the order it hands them out), regrouped into minibatches of
     * {@code minibatch} examples in which minibatch j holds only classes c with c mod k == j mod k; the
     * examples left over when the groups are not a multiple of {@code minibatch} (or not equally large)
     * are dropped. The dataset hands out minibatches of {@code minibatch}, in this order, every epoch.
     */
    public static ArrayDataset byClass(Dataset dataset, int k, int minibatch, NDManager manager) {
        if (k < 1 || minibatch < 1) {
            throw new IllegalArgumentException("byClass needs at least 1 worker and 1 example per minibatch, got "
                    + k + " and " + minibatch + ".");
        }
        List<NDArray> xs = new ArrayList<>();
        List<NDArray> ys = new ArrayList<>();
        for (Batch b : Batches.of(dataset, manager, "training")) {
            try (b) {
                NDArray x = b.getData().head().duplicate();
                NDArray y = b.getLabels().head().duplicate();
                x.attach(manager);
                y.attach(manager);
                xs.add(x);
                ys.add(y);
            }
        }
        try (NDManager tmp = manager.newSubManager()) {
            NDArray x = NDArrays.concat(new NDList(xs));
            NDArray y = NDArrays.concat(new NDList(ys));
            xs.forEach(NDArray::close);
            ys.forEach(NDArray::close);
            x.attach(tmp);
            y.attach(tmp);
            long[] order = order(y.toType(ai.djl.ndarray.types.DataType.INT32, false).toIntArray(), k, minibatch);
            if (order.length == 0) {
                throw new IllegalArgumentException("Too few examples: some worker's classes do not fill one minibatch of "
                        + minibatch + "; use more data (DATASET_LIMIT) or smaller minibatches.");
            }
            NDArray index = tmp.create(order);
            NDArray xo = x.get(index);
            NDArray yo = y.get(index);
            xo.attach(manager);
            yo.attach(manager);
            return new ArrayDataset.Builder().setData(xo).optLabels(yo).setSampling(minibatch, false).build();
        }
    }

    /** The example indices in the order of {@link #byClass}: blocks of {@code minibatch}, block j from group j mod k. */
    static long[] order(int[] labels, int k, int minibatch) {
        List<List<Integer>> groups = new ArrayList<>();
        for (int p = 0; p < k; p++) {
            groups.add(new ArrayList<>());
        }
        for (int i = 0; i < labels.length; i++) {
            groups.get(Math.floorMod(labels[i], k)).add(i);
        }
        int rounds = groups.stream().mapToInt(g -> g.size() / minibatch).min().orElse(0);
        long[] order = new long[rounds * k * minibatch];
        int n = 0;
        for (int r = 0; r < rounds; r++) {
            for (List<Integer> g : groups) {
                for (int i = r * minibatch; i < (r + 1) * minibatch; i++) {
                    order[n++] = g.get(i);
                }
            }
        }
        return order;
    }
}
