package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.training.dataset.RandomAccessDataset;
import java.util.List;
import java.util.Locale;
import org.d2l.multigpu.checkpoint.CheckpointPolicy;
import org.d2l.multigpu.checkpoint.Stateful;
import org.d2l.multigpu.data.Batches;
import org.d2l.multigpu.eval.Accuracy;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.loop.EpochTrainer;
import org.d2l.multigpu.loop.ParameterSnapshot;
import org.d2l.multigpu.loop.TrainingInterruptedException;
import org.d2l.multigpu.runtime.NoGrad;

/** A {@link DataParallelTrainer} bound to its training and test sets: how it trains and evaluates one epoch. */
final class DataParallelEpochs implements EpochTrainer {

    private final DataParallelTrainer t;
    private final EpochTally tally;
    private final NDManager manager;
    private final boolean prefetch;
    private final RandomAccessDataset trainSet;
    private final RandomAccessDataset testSet;

    /** {@code trainer}, whose epochs add up in {@code tally} and whose arrays {@code manager} holds, on these sets. */
    DataParallelEpochs(DataParallelTrainer trainer, EpochTally tally, NDManager manager, boolean prefetch,
            RandomAccessDataset trainSet, RandomAccessDataset testSet) {
        if (trainSet == null) {
            throw new IllegalArgumentException("The trainer needs a training set (the test set may be null).");
        }
        this.t = trainer;
        this.tally = tally;
        this.manager = manager;
        this.prefetch = prefetch;
        this.trainSet = trainSet;
        this.testSet = testSet;
    }

    @Override
    public EpochMetrics trainEpoch(EpochListener events) {
        int k = t.getDevices().size();
        boolean own = t.getSync().ownMinibatches();
        if (own && trainSet.size() < k) {
            throw new IllegalArgumentException("The training set has " + trainSet.size() + " example(s), fewer than the "
                    + k + " workers that each need a minibatch: use more data (DATASET_LIMIT) or fewer workers.");
        }
        int epoch = t.getHistory().size() + 1;
        events.onEpochStart(epoch, trainSet.size());
        tally.reset();
        try (NoGrad g = NoGrad.scope();
                EpochBatches batches = new EpochBatches(trainSet, org.d2l.multigpu.data.DataOrder.of(trainSet, t.shuffleSeed(), epoch), manager,
                        prefetch, own ? k : 1)) {
            for (List<NDList> group = nextGroup(batches, events); !group.isEmpty(); group = nextGroup(batches, events)) {
                long t0 = System.nanoTime();
                StepResult r = own
                        ? t.trainRound(EpochBatches.part(group, 0), EpochBatches.part(group, 1))
                        : t.trainStep(group.get(0).get(0), group.get(0).get(1));
                tally.add(r, (System.nanoTime() - t0) / 1e9);
                batches.release();
                events.onStep(epoch, tally.examples(), tally.meanLoss());
            }
            t.finishSync();
        }
        return t.epochDone(testSet == null ? Double.NaN : evaluate(testSet));
    }

    /** The accuracy of the model on {@code data}, each batch split over the trainer's own replicas. */
    private double evaluate(RandomAccessDataset data) {
        try (NoGrad g = NoGrad.scope(); NDManager tmp = manager.newSubManager()) {
            return Accuracy.evaluateAccuracy(t.getNet(), Batches.of(data, tmp, "test"), t.float32Replicas(tmp));
        }
    }

    /** The next step's batches (none at the end of the epoch), or a stop that says where when interrupted. */
    private List<NDList> nextGroup(EpochBatches batches, EpochListener events) {
        try {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            return batches.next();
        } catch (InterruptedException ex) {
            t.finishSync();
            List<EpochMetrics> history = t.getHistory();
            TrainingInterruptedException stop = new TrainingInterruptedException(history.size() + 1, tally.steps(),
                    history, String.format(Locale.ROOT, "getHistory() keeps the %d finished epoch(s); call "
                            + "fit(...) again to continue training from here.", history.size()));
            events.onInterrupt(stop);
            throw stop;
        }
    }

    @Override
    public List<EpochMetrics> getHistory() {
        return t.getHistory();
    }

    @Override
    public CheckpointPolicy checkpoints() {
        return t.config.checkpoints();
    }

    @Override
    public Stateful state() {
        // the data is part of the run: a checkpoint of a smaller DATASET_LIMIT must not pass for this run's
        return new TrainerState(t, java.util.Map.of("training examples", String.valueOf(trainSet.size()),
                "test examples", String.valueOf(testSet == null ? 0 : testSet.size())));
    }

    @Override
    public Block getNet() {
        return t.getNet();
    }

    @Override
    public List<Device> getDevices() {
        return t.getDevices();
    }

    @Override
    public boolean hasTestSet() {
        return testSet != null;
    }

    @Override
    public boolean progress() {
        return t.progress();
    }

    @Override
    public ParameterSnapshot snapshot() {
        return t.snapshot();
    }

    @Override
    public void restore(ParameterSnapshot snapshot) {
        t.restore(snapshot);
    }
}
