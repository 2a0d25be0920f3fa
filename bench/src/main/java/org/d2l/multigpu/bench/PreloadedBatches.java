package org.d2l.multigpu.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.Batch;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.data.Batches;
import org.d2l.multigpu.data.FashionMnistData;

/** The batches a child run trains on, loaded before any step is timed: Fashion-MNIST or random images. */
final class PreloadedBatches {

    private PreloadedBatches() {}

    /** The full batches of {@code batch} examples among Fashion-MNIST's first {@code limit} training examples. */
    static List<NDList> fashionMnist(NDManager manager, int batch, int limit) {
        var data = FashionMnistData.builder().setSampling(batch, false).optLimit(limit).optManager(manager)
                .build().train();
        List<NDList> out = new ArrayList<>();
        for (Batch b : Batches.of(data, manager, "training")) {
            NDArray x = b.getData().head();
            NDArray y = b.getLabels().head();
            if (x.getShape().get(0) == batch) {
                x.attach(manager);
                y.attach(manager);
                out.add(new NDList(x, y.toType(DataType.FLOAT32, false)));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("DATASET_LIMIT " + limit + " gives no full batch of " + batch);
        }
        return out;
    }

    /** {@code limit / batch} batches of random images and labels (a GPU machine may not have Fashion-MNIST). */
    static List<NDList> random(NDManager manager, int batch, int limit) {
        List<NDList> out = new ArrayList<>();
        for (int i = 0; i < Math.max(1, limit / batch); i++) {
            out.add(new NDList(manager.randomUniform(0, 1, new Shape(batch, 1, 28, 28)),
                    manager.randomInteger(0, 10, new Shape(batch), DataType.INT32).toType(DataType.FLOAT32, false)));
        }
        return out;
    }
}
