package org.d2l.multigpu.eval;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.training.dataset.Batch;
import ai.djl.ndarray.types.DataType;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.devices.ReplicaStore;

/** Classification accuracy of a network on a data set, on one device or split over several. */
public final class Accuracy {

    private Accuracy() {}

    /** The number of correct predictions: rows of {@code yHat} whose argmax equals {@code y}. */
    public static float accuracy(NDArray yHat, NDArray y) {
        NDArray pred = yHat.getShape().dimension() > 1 && yHat.getShape().get(1) > 1
                ? yHat.argMax(1) : yHat;
        return pred.toType(DataType.INT64, false)
                .eq(y.toType(DataType.INT64, false))
                .countNonzero()
                .toLongArray()[0]; // getLong() would index a new scalar array first
    }

    /** The accuracy of {@code net} over {@code dataIter}, computed on {@code device}. */
    public static double evaluateAccuracy(Block net, Iterable<Batch> dataIter, Device device) {
        return evaluateAccuracyGpus(net, dataIter, List.of(device));
    }

    /**
     * The accuracy over {@code dataIter} of a network given as a function from images to logits (such
     * as the from-scratch lesson's {@code x -> lenet(x, params)}), computed on {@code device}.
     */
    public static double evaluateAccuracy(
            Function<NDArray, NDArray> net, Iterable<Batch> dataIter, Device device) {
        Accumulator metric = new Accumulator(2);
        try (NDManager manager = NDManager.newBaseManager(device)) {
            for (Batch batch : dataIter) {
                try (batch; NDManager step = manager.newSubManager()) {
                    NDArray x = batch.getData().head().toDevice(device, true);
                    NDArray y = batch.getLabels().head().toDevice(device, true);
                    step.tempAttachAll(x, y);
                    metric.add(accuracy(net.apply(x), y), y.size());
                }
            }
        }
        return metric.get(1) == 0 ? 0 : metric.get(0) / metric.get(1);
    }

    /**
     * The accuracy of {@code net} over {@code dataIter}, each batch split over {@code devices} (as
     * the book's {@code evaluate_accuracy_gpus}) and the correct counts added up.
     */
    public static double evaluateAccuracyGpus(Block net, Iterable<Batch> dataIter, List<Device> devices) {
        if (devices.isEmpty()) {
            throw new IllegalArgumentException("evaluateAccuracyGpus needs at least one device.");
        }
        try (NDManager manager = NDManager.newBaseManager(devices.get(0))) {
            List<ReplicaStore> stores = new ArrayList<>();
            Device home = net.getParameters().valueAt(0).getArray().getDevice();
            for (Device d : devices) {
                stores.add(d.equals(home) ? ReplicaStore.of(net, manager)
                        : ReplicaStore.copyOf(net, d, manager, false));
            }
            return evaluateAccuracy(net, dataIter, stores);
        }
    }

    /**
     * The accuracy of {@code net} over {@code dataIter} computed with parameter values that are already on
     * the devices ({@code replicas}, one per device, such as a trainer's replicas), each batch split over them.
     */
    public static double evaluateAccuracy(Block net, Iterable<Batch> dataIter, List<ReplicaStore> replicas) {
        List<Device> devices = replicas.stream().map(ReplicaStore::device).toList();
        Accumulator metric = new Accumulator(2); // correct predictions, predictions
        try (NDManager manager = NDManager.newBaseManager(devices.get(0))) {
            for (Batch batch : dataIter) {
                try (batch; NDManager step = manager.newSubManager()) {
                    NDArray x = batch.getData().head();
                    NDArray y = batch.getLabels().head();
                    List<NDList> parts = Devices.split(x, y, devices);
                    for (int i = 0; i < parts.size(); i++) {
                        // each shard's forward pass in a manager of its own, closed before the next shard's:
                        // the layers' outputs of one shard at a time (2 shards of 256 on ResNet-18 of width
                        // 16: a peak of 1,005 MB resident before, 624 after)
                        try (NDManager shard = step.newSubManager()) {
                            NDArray xi = parts.get(i).get(0);
                            NDArray yi = parts.get(i).get(1);
                            xi.attach(shard);
                            yi.attach(shard);
                            NDArray yHat = net.forward(replicas.get(i), new NDList(xi), false).head();
                            metric.add(accuracy(yHat, yi), yi.size());
                        }
                    }
                }
            }
        }
        return metric.get(1) == 0 ? 0 : metric.get(0) / metric.get(1);
    }
}
