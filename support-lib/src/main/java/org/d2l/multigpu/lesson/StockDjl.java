package org.d2l.multigpu.lesson;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterServer;
import ai.djl.training.ParameterStore;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.listener.TrainingListener;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.devices.Devices;

/**
 * DJL's own multi-device training ({@code optDevices} with {@code EasyTrain.fit}), for users with
 * several GPUs, with its pitfalls made explicit: DJL 0.35 sums the per-device mean gradients (k
 * devices act like k times the learning rate), calls the optimizer once per device (schedules and
 * Adam's step count advance k times a step), runs the devices one after another, and cannot hold two
 * replicas on one device (so it needs k distinct GPUs).
 */
public final class StockDjl {

    private StockDjl() {}

    /**
     * A training config for DJL's {@code Trainer} on {@code devices} with SGD at {@code lr}; when
     * {@code compensate} is true the learning rate is divided by the number of devices so that
     * DJL's gradient sum becomes a mean.
     */
    public static DefaultTrainingConfig config(Loss loss, float lr, List<Device> devices, boolean compensate) {
        if (Devices.hasVirtualReplicas(devices)) {
            throw new IllegalArgumentException("DJL's Trainer cannot hold two replicas on one device ("
                    + devices + "): use DataParallelTrainer for virtual replicas on the CPU.");
        }
        devices.forEach(Devices::check);
        float used = compensate ? effectiveLearningRateFix(lr, devices.size()) : lr;
        return new DefaultTrainingConfig(loss)
                .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(used)).build())
                .optDevices(devices.toArray(new Device[0]))
                .addTrainingListeners(TrainingListener.Defaults.logging());
    }

    /** The learning rate to give DJL on {@code k} devices so that it applies {@code lr} to the mean gradient. */
    public static float effectiveLearningRateFix(float lr, int k) {
        return lr / k;
    }

    /** What DJL's own parameter server did in one step: the weight's change, and the optimizer's update counts. */
    public record ServerStep(NDArray change, NDArray meanChange, List<Integer> updateCounts) {

        /** The size of DJL's change over the size of the change that the mean gradient makes. */
        public double ratio() {
            return change.norm().getFloat() / (double) meanChange.norm().getFloat();
        }
    }

    /**
     * One SGD step at {@code lr} of DJL's own parameter server ({@code Engine.newParameterServer}, the
     * code behind {@code optDevices}) on k copies of {@code weight}, k = the number of shards of
     * {@code x} and {@code y}: each copy gets the gradient of one shard's mean loss, as DJL's Trainer
     * computes it on k devices; the result also holds the change that the mean gradient would make.
     */
    public static ServerStep parameterServerStep(Block net, Parameter weight, NDArray x, NDArray y, int k, float lr) {
        if (k < 2 || x.getShape().get(0) % k != 0) {
            throw new IllegalArgumentException("parameterServerStep needs k >= 2 shards of equal size; got k = " + k
                    + " for a batch of " + x.getShape().get(0));
        }
        NDManager manager = x.getManager();
        NDArray w = weight.getArray();
        NDList xs = x.split(k);
        NDList ys = y.split(k);
        NDArray[] grads = new NDArray[k];
        NDArray[] copies = new NDArray[k];
        Loss loss = Loss.softmaxCrossEntropyLoss();
        for (int i = 0; i < k; i++) {
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                NDArray out = net.forward(new ParameterStore(manager, false), new NDList(xs.get(i)), true).head();
                gc.backward(loss.evaluate(new NDList(ys.get(i)), new NDList(out)));
            }
            grads[i] = w.getGradient().duplicate();
            grads[i].attach(manager);
            copies[i] = w.duplicate();
            copies[i].attach(manager);
        }
        NDArray meanChange = grads[0].add(grads[1]);
        for (int i = 2; i < k; i++) {
            meanChange.addi(grads[i]);
        }
        meanChange.muli(-lr / k);
        List<Integer> counts = new ArrayList<>();
        Tracker recording = numUpdate -> {
            counts.add(numUpdate);
            return lr;
        };
        NDArray before = copies[0].duplicate();
        try (ParameterServer ps = Engine.getInstance()
                .newParameterServer(Optimizer.sgd().setLearningRateTracker(recording).build())) {
            ps.init(weight.getId(), copies);
            ps.update(weight.getId(), grads, copies);
        }
        return new ServerStep(copies[0].sub(before), meanChange, List.copyOf(counts));
    }
}
