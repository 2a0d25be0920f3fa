package org.d2l.multigpu.lesson;

import ai.djl.Device;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.listener.TrainingListener;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
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
}
