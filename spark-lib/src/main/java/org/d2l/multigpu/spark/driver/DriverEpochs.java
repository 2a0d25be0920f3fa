package org.d2l.multigpu.spark.driver;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.d2l.multigpu.checkpoint.CheckpointPolicy;
import org.d2l.multigpu.checkpoint.Stateful;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.loop.EpochTrainer;
import org.d2l.multigpu.loop.ParameterSnapshot;

/**
 * A Spark trainer bound to its data, as {@link org.d2l.multigpu.loop.TrainingLoop} drives it: the
 * epochs run on the executors, the model is the driver's copy, evaluated on the driver's CPU.
 */
final class DriverEpochs implements EpochTrainer {

    private final Function<EpochListener, EpochMetrics> epoch;
    private final Block net;
    private final NDManager manager;
    private final boolean hasTestSet;
    private final boolean progress;
    private Supplier<List<EpochMetrics>> history = List::of;
    private CheckpointPolicy checkpoints;
    private Supplier<Stateful> state = () -> null;
    private java.util.function.IntConsumer begin = epochs -> { };
    private Runnable end = () -> { };

    /** Epochs run by {@code epoch}, the driver's {@code net} (snapshots held by {@code manager}). */
    DriverEpochs(Function<EpochListener, EpochMetrics> epoch, Block net, NDManager manager, boolean hasTestSet,
            boolean progress) {
        this.epoch = epoch;
        this.net = net;
        this.manager = manager;
        this.hasTestSet = hasTestSet;
        this.progress = progress;
    }

    /**
     * These epochs with the trainer's {@code history}, and checkpoints in {@code checkpoints} (null: none) of
     * the driver-side {@code state}.
     */
    DriverEpochs withCheckpoints(Supplier<List<EpochMetrics>> history, CheckpointPolicy checkpoints,
            Supplier<Stateful> state) {
        this.history = history;
        this.checkpoints = checkpoints;
        this.state = state;
        return this;
    }

    /** These epochs with {@code begin} and {@code end} called around a run of them (see {@link EpochTrainer#beginRun}). */
    DriverEpochs withRun(java.util.function.IntConsumer begin, Runnable end) {
        this.begin = begin;
        this.end = end;
        return this;
    }

    @Override
    public EpochMetrics trainEpoch(EpochListener events) {
        return epoch.apply(events);
    }

    @Override
    public void beginRun(int epochs) {
        begin.accept(epochs);
    }

    @Override
    public void endRun() {
        end.run();
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

    @Override
    public List<EpochMetrics> getHistory() {
        return history.get();
    }

    @Override
    public CheckpointPolicy checkpoints() {
        return checkpoints;
    }

    @Override
    public Stateful state() {
        return state.get();
    }
}
