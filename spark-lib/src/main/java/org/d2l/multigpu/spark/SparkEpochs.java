package org.d2l.multigpu.spark;

import ai.djl.Device;
import ai.djl.nn.Block;
import ai.djl.training.dataset.RandomAccessDataset;
import java.util.List;
import org.d2l.multigpu.checkpoint.CheckpointPart;
import org.d2l.multigpu.checkpoint.Checkpoints;
import org.d2l.multigpu.parallel.EpochListener;
import org.d2l.multigpu.parallel.EpochMetrics;
import org.d2l.multigpu.parallel.EpochTrainer;
import org.d2l.multigpu.parallel.ParameterSnapshot;

/** A {@link SparkTrainer} bound to its data, for the shared epoch loop: its model is the driver's copy, evaluated on the driver's CPU. */
final class SparkEpochs implements EpochTrainer {

    private final SparkTrainer spark;
    private final ShardedData data;
    private final RandomAccessDataset testSet;

    SparkEpochs(SparkTrainer spark, ShardedData data, RandomAccessDataset testSet) {
        this.spark = spark;
        this.data = data;
        this.testSet = testSet;
    }

    @Override
    public EpochMetrics trainEpoch(EpochListener events) {
        return spark.trainEpoch(data, testSet, events);
    }

    @Override
    public Block getNet() {
        return spark.getNet();
    }

    @Override
    public List<Device> getDevices() {
        return List.of(Device.cpu());
    }

    @Override
    public boolean hasTestSet() {
        return testSet != null;
    }

    @Override
    public boolean progress() {
        return spark.progress();
    }

    @Override
    public ParameterSnapshot snapshot() {
        return ParameterSnapshot.of(spark.getNet(), spark.manager());
    }

    @Override
    public void restore(ParameterSnapshot snapshot) {
        snapshot.copyInto(spark.getNet());
    }

    @Override
    public List<EpochMetrics> getHistory() {
        return spark.getHistory();
    }

    @Override
    public Checkpoints checkpoints() {
        return spark.checkpoints();
    }

    @Override
    public CheckpointPart state() {
        return new SparkState(spark);
    }
}
