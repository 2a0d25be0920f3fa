package org.d2l.multigpu.spark.driver;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.dataset.ArrayDataset;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.parallel.GradientAveraging;
import org.d2l.multigpu.parallel.ParameterAveraging;
import org.d2l.multigpu.spark.Minibatch;
import org.d2l.multigpu.spark.ModelFactory;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ParameterValues;

/** The in-process side of the comparison: the support jar's trainer with ParameterAveraging on k virtual replicas. */
final class InProcess {

    private InProcess() {}

    /**
     * One epoch of {@code DataParallelTrainer} with {@code ParameterAveraging} every {@code n} rounds
     * on {@code k} virtual replicas, starting from {@code start}, over {@code batches} in order (round r
     * gives worker p minibatch r * k + p) with one PyTorch thread; returns the averaged parameters.
     */
    static ParameterValues train(ParameterValues start, List<Minibatch> batches, int k, int n,
            OptimizerFactory optimizer) {
        return train(start, batches, k, n, optimizer, 1);
    }

    /** The same over {@code epochs} epochs, with one PyTorch thread as each Spark task of local[k]: the same arithmetic. */
    static ParameterValues train(ParameterValues start, List<Minibatch> batches, int k, int n,
            OptimizerFactory optimizer, int epochs) {
        return train(start, batches, k, n, optimizer, epochs, 1);
    }

    /** The same with {@code taskThreads} PyTorch threads, as many as each Spark task has. */
    static ParameterValues train(ParameterValues start, List<Minibatch> batches, int k, int n,
            OptimizerFactory optimizer, int epochs, int taskThreads) {
        int threads = JniUtils.getNumThreads();
        JniUtils.setNumThreads(taskThreads);
        try (NDManager manager = NDManager.newBaseManager()) {
            Block net = Models.LENET.newBlock();
            net.initialize(manager, DataType.FLOAT32, Models.LENET.inputShape());
            start.loadInto(net);
            ArrayDataset data = Minibatch.asDataset(batches, manager);
            ParameterAveraging sync = ParameterAveraging.builder().optAveragingFrequency(n).optAverageUpdaters(true).build();
            try (DataParallelTrainer t = DataParallelTrainer.builder(net).setDevices(Devices.virtual(k))
                    .optOptimizer(optimizer.newOptimizer()).optSync(sync).optProgress(false).build()) {
                for (int e = 0; e < epochs; e++) {
                    t.trainEpoch(data, null);
                }
            }
            return ParameterValues.of(net);
        } finally {
            JniUtils.setNumThreads(threads);
        }
    }

    /**
     * {@code epochs} epochs of {@code DataParallelTrainer} with gradient averaging (the mean rule) on
     * {@code k} virtual replicas from {@code start}, each of {@code batches} a global batch, with one
     * PyTorch thread (as each Spark task of local[k]); returns the parameters after every epoch.
     */
    static List<ParameterValues> trainAveragingGradients(ParameterValues start, List<Minibatch> batches, int k,
            OptimizerFactory optimizer, int epochs) {
        return trainAveragingGradients(start, batches, k, optimizer, epochs, null);
    }

    /** The same with the gradients compressed by {@code compressor} (null: none). */
    static List<ParameterValues> trainAveragingGradients(ParameterValues start, List<Minibatch> batches, int k,
            OptimizerFactory optimizer, int epochs, Compressor compressor) {
        return trainAveragingGradients(Models.LENET, start, batches, k, optimizer, epochs, compressor);
    }

    /** The same for the network {@code model} builds. */
    static List<ParameterValues> trainAveragingGradients(ModelFactory model, ParameterValues start,
            List<Minibatch> batches, int k, OptimizerFactory optimizer, int epochs, Compressor compressor) {
        int threads = JniUtils.getNumThreads();
        JniUtils.setNumThreads(1);
        try (NDManager manager = NDManager.newBaseManager()) {
            Block net = model.newBlock();
            net.initialize(manager, DataType.FLOAT32, model.inputShape());
            start.loadInto(net);
            ArrayDataset data = Minibatch.asDataset(batches, manager);
            List<ParameterValues> after = new ArrayList<>();
            try (DataParallelTrainer t = DataParallelTrainer.builder(net).setDevices(Devices.virtual(k))
                    .optOptimizer(optimizer.newOptimizer()).optSync(GradientAveraging.mean()).optCompression(compressor)
                    .optProgress(false).build()) {
                for (int e = 0; e < epochs; e++) {
                    t.trainEpoch(data, null);
                    after.add(ParameterValues.of(net));
                }
            }
            return after;
        } finally {
            JniUtils.setNumThreads(threads);
        }
    }
}
