package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.dataset.Sampler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.d2l.multigpu.checkpoint.CheckpointPolicy;
import org.d2l.multigpu.checkpoint.Stateful;
import org.d2l.multigpu.data.Batches;
import org.d2l.multigpu.eval.Accuracy;
import org.d2l.multigpu.eval.Timer;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.loop.EpochTrainer;
import org.d2l.multigpu.loop.ParameterSnapshot;
import org.d2l.multigpu.loop.TrainingInterruptedException;
import org.d2l.multigpu.runtime.NoGrad;

/**
 * A {@link DataParallelTrainer} bound to its training and test sets: how it trains and evaluates one epoch, taking
 * the epoch's batches ({@link EpochBatches}) and adding up its sums ({@link EpochTally}).
 */
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

    /**
     * One epoch's batches as the trainer takes them: one global batch a step, or k minibatches a round
     * (fewer in a last partial round), loaded ahead on a background thread when prefetching. The
     * arrays of a step are held by a manager of ours until {@link #release()}: DJL's iterator frees its
     * own batches as soon as it reports that no batch is left, before a last partial round has run.
     */
    static final class EpochBatches implements AutoCloseable {

        private final NDManager parent;
        private final int perStep;
        private final ExecutorService prefetcher;
        private final Iterator<Batch> it;
        private NDManager held;

        /** The batches of {@code trainSet} drawn by {@code order} (null: the data set's own sampler). */
        EpochBatches(RandomAccessDataset trainSet, Sampler order, NDManager manager, boolean prefetch, int perStep) {
            this.parent = manager;
            this.perStep = perStep;
            this.held = manager.newSubManager();
            this.prefetcher = prefetch ? Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "prefetch");
                t.setDaemon(true);
                return t;
            }) : null;
            it = Batches.of(trainSet, manager, order, prefetcher, "training").iterator();
        }

        /**
         * The next step's (examples, labels), one pair per batch; empty when the epoch is over. Throws
         * {@link InterruptedException} when interrupted while waiting for a prefetched batch.
         */
        List<NDList> next() throws InterruptedException {
            List<NDList> group = new ArrayList<>();
            try {
                while (group.size() < perStep && it.hasNext()) {
                    try (Batch b = it.next()) {
                        NDArray x = b.getData().head();
                        NDArray y = b.getLabels().head();
                        x.attach(held);
                        y.attach(held);
                        group.add(new NDList(x, y));
                    }
                }
            } catch (RuntimeException ex) {
                for (Throwable t = ex; t != null; t = t.getCause()) {
                    if (t instanceof InterruptedException) {
                        throw new InterruptedException("interrupted while waiting for a prefetched batch");
                    }
                }
                throw ex;
            }
            return group;
        }

        /** Frees the arrays of the step just taken. */
        void release() {
            held.close();
            held = parent.newSubManager();
        }

        /** The examples (index 0) or labels (index 1) of every batch of {@code group}. */
        static List<NDArray> part(List<NDList> group, int index) {
            List<NDArray> part = new ArrayList<>(group.size());
            for (NDList b : group) {
                part.add(b.get(index));
            }
            return part;
        }

        @Override
        public void close() {
            if (prefetcher != null) {
                prefetcher.shutdownNow();
            }
            held.close();
        }

        /** Checks that a parameter-averaging round under {@code sync} gets 1 to k minibatches with as many label arrays. */
        static void checkRound(ReplicaSync sync, List<NDArray> xs, List<NDArray> ys, int k) {
            if (!sync.ownMinibatches()) {
                throw new IllegalStateException("trainRound gives each worker its own minibatch, which is "
                        + "parameter averaging; with " + sync.getClass().getSimpleName()
                        + " call trainStep(x, y) with the global batch.");
            }
            if (xs.isEmpty() || xs.size() != ys.size() || xs.size() > k) {
                throw new IllegalArgumentException("A round takes between 1 and " + k
                        + " minibatches (one per worker) with as many label arrays; got " + xs.size()
                        + " and " + ys.size() + ".");
            }
        }

        /** Array i of {@code arrays} on device i, the originals attached to {@code step} so that they go back with it. */
        static List<NDArray> onDevices(List<NDArray> arrays, List<Device> devices, NDManager step) {
            List<NDArray> moved = new ArrayList<>();
            for (int i = 0; i < arrays.size(); i++) {
                step.tempAttachAll(arrays.get(i));
                moved.add(arrays.get(i).toDevice(devices.get(i), false));
            }
            return moved;
        }
    }

    /** The sums one epoch of training adds up as it goes, turned into its {@link EpochMetrics} at the end. */
    static final class EpochTally {

        private double lossSum;
        private double correct;
        private long examples;
        private long steps;
        private long syncs;
        private long syncBytes;
        private long skipped;
        /** The time of every step of the epoch. */
        private Timer stepTimes = new Timer();
        /** The bytes of the last synchronisation, kept across epochs. */
        private long lastSyncBytes;

        /** Starts a new epoch from zero. */
        void reset() {
            lossSum = 0;
            correct = 0;
            examples = 0;
            steps = 0;
            syncs = 0;
            syncBytes = 0;
            skipped = 0;
            stepTimes = new Timer();
        }

        /** Adds a step (or round) that took {@code secs} seconds. */
        void add(StepResult r, double secs) {
            lossSum += r.lossSum();
            correct += r.correct();
            examples += r.examples();
            stepTimes.record(secs);
            steps++;
        }

        /** Counts a step that float16 skipped (a gradient overflowed). */
        void skipped() {
            skipped++;
        }

        /** The steps (or rounds) of the epoch so far. */
        long steps() {
            return steps;
        }

        /** The mean training loss of the epoch so far. */
        double meanLoss() {
            return lossSum / examples;
        }

        /** The examples of the epoch so far. */
        long examples() {
            return examples;
        }

        /** The bytes of the last synchronisation, kept across epochs. */
        long lastSyncBytes() {
            return lastSyncBytes;
        }

        /** Counts a synchronisation that moved {@code bytes} (none when 0). */
        void synced(long bytes) {
            if (bytes > 0) {
                lastSyncBytes = bytes;
                syncs++;
                syncBytes += bytes;
            }
        }

        /** The epoch's metrics, with the bytes of optimizer state each replica holds. */
        EpochMetrics metrics(int epoch, double testAccuracy, double lossScale, long[] stateBytes) {
            double seconds = stepTimes.sum();
            return new EpochMetrics(epoch, lossSum / examples, correct / examples, testAccuracy, seconds,
                    examples / seconds, syncs, syncBytes, skipped, lossScale, steps,
                    Arrays.stream(stateBytes).boxed().toList(), steps == 0 ? Double.NaN : stepTimes.median());
        }
    }
}
