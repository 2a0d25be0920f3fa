package org.d2l.multigpu.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.dataset.ArrayDataset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.d2l.multigpu.bench.harness.ChildProcess;
import org.d2l.multigpu.bench.harness.Machine;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.parallel.GradientAveraging;
import org.d2l.multigpu.parallel.ParameterAveraging;

/**
 * A child run of the averaging suite: gradient averaging on 2 replicas with global batch
 * {@code batch}, or parameter averaging with 2 workers of batch {@code batch / 2} each (the same
 * examples per step): warm-up steps, then one timed epoch over {@code steps} global batches; prints
 * examples/s (step time only), peak RSS and the bytes synchronised scaled to a 60,000-example epoch.
 */
final class AveragingChild {

    private AveragingChild() {}

    /** Measures {@code config} (ga2, or pa2fF for averaging every F rounds) and prints its RESULT line. */
    static void run(String config, Block net, Shape input, float lr, List<NDList> batches, int steps, int warmup,
            int batch) throws Exception {
        boolean pa = config.startsWith("pa");
        var sync = pa ? ParameterAveraging.every(Integer.parseInt(config.substring(config.indexOf('f') + 1)))
                : GradientAveraging.mean();
        try (DataParallelTrainer t = DataParallelTrainer.builder(net).setDevices(Devices.virtual(2))
                .optInputShape(input).optLearningRate(lr).optSync(sync).optProgress(false).build()) {
            for (int i = 0; i < warmup; i++) {
                NDList b = batches.get(i % batches.size());
                t.trainStep(b.get(0), b.get(1));
            }
            List<NDArray> xs = new ArrayList<>();
            List<NDArray> ys = new ArrayList<>();
            for (int i = 0; i < steps; i++) {
                NDList b = batches.get((warmup + i) % batches.size());
                xs.add(b.get(0));
                ys.add(b.get(1));
            }
            ArrayDataset epoch = new ArrayDataset.Builder().setData(NDArrays.concat(new NDList(xs)))
                    .optLabels(NDArrays.concat(new NDList(ys))).setSampling(pa ? batch / 2 : batch, false).build();
            EpochMetrics e = t.trainEpoch(epoch, null);
            double bytesPerEpoch = e.syncBytes() * (double) TrainerReport.EPOCH / (steps * (double) batch);
            System.out.printf(Locale.ROOT, "%s %s %.3f %d %.0f%n", ChildProcess.RESULT, config, e.examplesPerSecond(),
                    Machine.peakRssKb(), bytesPerEpoch);
        }
    }
}
