package org.d2l.multigpu.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.nn.ParameterList;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.util.Pair;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.devices.OnDevice;

/** Small LeNet trainers on random data for the trainer's tests; close it to free everything. */
public final class TrainerFixture implements AutoCloseable {

    static final Shape IMAGE = new Shape(1, 1, 28, 28);

    final NDManager manager;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    public TrainerFixture() {
        Djl.setup();
        manager = NDManager.newBaseManager(Device.cpu());
        manager.getEngine().setRandomSeed(1234);
    }

    /** A trainer over {@code k} virtual replicas of {@code net}, which starts from {@code like}'s values when given. */
    DataParallelTrainer trainer(Block net, Block like, int k, Optimizer opt, ReplicaSync sync) {
        return trainer(net, like, k, opt, sync, false);
    }

    /** The same, with worker threads per replica when {@code concurrent}. */
    DataParallelTrainer trainer(Block net, Block like, int k, Optimizer opt, ReplicaSync sync, boolean concurrent) {
        initialize(net, like);
        DataParallelTrainer t = DataParallelTrainer.builder(net)
                .setDevices(Devices.virtual(k))
                .optOptimizer(opt)
                .optSync(sync)
                .optProgress(false)
                .optConcurrent(concurrent)
                .build();
        return closeLater(t);
    }

    /** Initialises {@code net} and copies {@code like}'s values into it when given. */
    Block initialize(Block net, Block like) {
        net.initialize(manager, DataType.FLOAT32, IMAGE);
        if (like != null) {
            copyParameters(like, net);
        }
        return net;
    }

    <T extends AutoCloseable> T closeLater(T t) {
        toClose.add(t);
        return t;
    }

    static Optimizer sgd(float lr) {
        return Optimizer.sgd().setLearningRateTracker(Tracker.fixed(lr)).build();
    }

    static void copyParameters(Block from, Block to) {
        ParameterList a = from.getParameters();
        ParameterList b = to.getParameters();
        for (int i = 0; i < a.size(); i++) {
            OnDevice.copyInto(a.get(i).getValue().getArray(), b.get(i).getValue().getArray());
        }
    }

    /** {@code n} random images with random labels 0..9. */
    NDList batch(int n) {
        NDArray x = manager.randomUniform(0, 1, new Shape(n, 1, 28, 28));
        NDArray y = manager.randomInteger(0, 10, new Shape(n), DataType.INT32).toType(DataType.FLOAT32, false);
        return new NDList(x, y);
    }

    /** A learnable toy task of {@code n} images on this fixture's manager, shuffled batches of 16. */
    ArrayDataset quarters(int n) {
        return quarters(manager, n, 16, true);
    }

    /** The largest absolute difference between the parameters of two blocks of the same kind. */
    static float maxDifference(Block a, Block b) {
        float max = 0;
        ParameterList pa = a.getParameters();
        ParameterList pb = b.getParameters();
        for (int i = 0; i < pa.size(); i++) {
            NDArray d = pa.get(i).getValue().getArray().sub(pb.get(i).getValue().getArray()).abs();
            max = Math.max(max, d.max().getFloat());
        }
        return max;
    }

    /** The largest absolute difference between replica {@code i} and replica 0. */
    static float replicaDifference(DataParallelTrainer t, int i) {
        float max = 0;
        for (Pair<String, Parameter> p : t.getNet().getParameters()) {
            String id = p.getValue().getId();
            NDArray d = t.replica(i).get(id).sub(t.replica(0).get(id)).abs();
            max = Math.max(max, d.max().getFloat());
        }
        return max;
    }

    static void assertReplicasBitIdentical(DataParallelTrainer t) {
        for (Pair<String, Parameter> p : t.getNet().getParameters()) {
            String id = p.getValue().getId();
            float[] first = t.replica(0).get(id).toFloatArray();
            for (int i = 1; i < t.getDevices().size(); i++) {
                assertArrayEquals(first, t.replica(i).get(id).toFloatArray(), 0f,
                        "replica " + i + " differs from replica 0 in " + p.getKey());
            }
        }
    }

    /**
     * A learnable toy task of {@code n} images on {@code manager}, in batches of {@code batchSize}
     * ({@code shuffle}d or not): the label is which quarter of the image is bright.
     */
    public static ArrayDataset quarters(NDManager manager, int n, int batchSize, boolean shuffle) {
        NDArray x = manager.zeros(new Shape(n, 1, 28, 28));
        float[] labels = new float[n];
        for (int i = 0; i < n; i++) {
            int q = i % 4;
            labels[i] = q;
            x.set(new NDIndex("{}, 0, {}:{}, {}:{}", i, (q / 2) * 14, (q / 2) * 14 + 14,
                    (q % 2) * 14, (q % 2) * 14 + 14), 1f);
        }
        return new ArrayDataset.Builder().setData(x).optLabels(manager.create(labels))
                .setSampling(batchSize, shuffle).build();
    }

    /** The bytes of all of {@code net}'s parameters. */
    static long parameterBytes(Block net) {
        long bytes = 0;
        for (Pair<String, Parameter> p : net.getParameters()) {
            NDArray a = p.getValue().getArray();
            bytes += a.size() * a.getDataType().getNumOfBytes();
        }
        return bytes;
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        manager.close();
    }
}
