package org.d2l.multigpu.spark;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import java.util.List;
import java.util.function.Function;
import org.d2l.multigpu.parallel.EpochListener;
import org.d2l.multigpu.parallel.EpochMetrics;
import org.d2l.multigpu.parallel.EpochTrainer;
import org.d2l.multigpu.parallel.ParameterSnapshot;

/**
 * A Spark trainer bound to its data, as {@link org.d2l.multigpu.parallel.TrainingLoop} drives it: the
 * epochs run on the executors, the model is the driver's copy, evaluated on the driver's CPU.
 */
final class DriverEpochs implements EpochTrainer {

    private final Function<EpochListener, EpochMetrics> epoch;
    private final Block net;
    private final NDManager manager;
    private final boolean hasTestSet;
    private final boolean progress;

    /** Epochs run by {@code epoch}, the driver's {@code net} (snapshots held by {@code manager}). */
    DriverEpochs(Function<EpochListener, EpochMetrics> epoch, Block net, NDManager manager, boolean hasTestSet,
            boolean progress) {
        this.epoch = epoch;
        this.net = net;
        this.manager = manager;
        this.hasTestSet = hasTestSet;
        this.progress = progress;
    }

    @Override
    public EpochMetrics trainEpoch(EpochListener events) {
        return epoch.apply(events);
    }

    @Override
    public Block getNet() {
        return net;
    }

    @Override
    public List<Device> getDevices() {
        return List.of(Device.cpu());
    }

    @Override
    public boolean hasTestSet() {
        return hasTestSet;
    }

    @Override
    public boolean progress() {
        return progress;
    }

    @Override
    public ParameterSnapshot snapshot() {
        return ParameterSnapshot.of(net, manager);
    }

    @Override
    public void restore(ParameterSnapshot snapshot) {
        snapshot.copyInto(net);
    }
}
