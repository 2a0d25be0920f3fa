package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.initializer.Initializer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.translate.TranslateException;
import ai.djl.util.Pair;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.eval.Accuracy;
import org.d2l.multigpu.models.Init;
import org.d2l.multigpu.runtime.Djl;

/**
 * Trains a DJL block on k replicas, one per device: on k GPUs each replica runs on its own worker
 * thread; on a CPU the k replicas are virtual and run one after another, computing exactly what k
 * devices would. Every global step splits the batch, runs forward and backward per replica, and
 * brings the replicas in step with a {@link ReplicaSync} (by default {@link GradientAveraging#mean()}).
 */
public final class DataParallelTrainer implements AutoCloseable {

    private final Block net;
    private final List<Device> devices;
    private final Loss loss;
    private final Optimizer optimizer;
    private final ReplicaSync sync;
    private final boolean progress;
    private final PrintStream out;
    private final NDManager manager;
    private final List<ReplicaStore> replicas = new ArrayList<>();
    private final List<Parameter> params = new ArrayList<>();
    private final List<ExecutorService> workers = new ArrayList<>();
    private int epochs;
    private long steps;

    private DataParallelTrainer(Builder b) {
        Djl.setup();
        this.net = b.net;
        this.devices = List.copyOf(b.devices);
        this.loss = b.loss;
        this.optimizer = b.optimizer;
        this.sync = b.sync;
        this.progress = b.progress;
        this.out = b.out;
        Device home = devices.get(0);
        this.manager = NDManager.newBaseManager(home);
        if (!net.isInitialized()) {
            if (b.inputShape == null) {
                throw new IllegalArgumentException(
                        "The block is not initialised: give the builder optInputShape(...) (for example "
                        + "new Shape(1, 1, 28, 28)) or initialise the block first.");
            }
            Init.weights(net, b.initializer);
            // The block's parameters belong to the block, not to this trainer: they outlive close().
            net.initialize(NDManager.newBaseManager(home), DataType.FLOAT32, b.inputShape);
        }
        for (Pair<String, Parameter> p : net.getParameters()) {
            Parameter param = p.getValue();
            NDArray a = param.getArray();
            if (!a.getDevice().equals(home)) {
                throw new IllegalArgumentException("The block's parameter " + p.getKey() + " lives on "
                        + a.getDevice() + " but replica 0 trains on " + home
                        + ": initialise the block on the first device.");
            }
            if (param.requiresGradient()) {
                a.setRequiresGradient(true);
            }
            params.add(param);
        }
        replicas.add(ReplicaStore.of(net, manager));
        for (int i = 1; i < devices.size(); i++) {
            replicas.add(ReplicaStore.copyOf(net, devices.get(i), manager, true));
        }
        boolean concurrent = b.concurrent != null ? b.concurrent
                : devices.size() > 1 && !Devices.hasVirtualReplicas(devices);
        if (concurrent) {
            for (int i = 0; i < devices.size(); i++) {
                int id = i;
                workers.add(Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "replica-" + id + "-" + devices.get(id));
                    t.setDaemon(true);
                    return t;
                }));
            }
        }
    }

    /** Starts a builder for training {@code net}. */
    public static Builder builder(Block net) {
        return new Builder(net);
    }

    /** The block being trained; its own parameters are replica 0's. */
    public Block getNet() {
        return net;
    }

    /** The devices, one per replica. */
    public List<Device> getDevices() {
        return devices;
    }

    /**
     * A copy of the current parameters (replica 0's, which every replica holds after an epoch),
     * including running statistics; {@link #restore} writes it back into every replica.
     */
    public ParameterSnapshot snapshot() {
        java.util.Map<String, NDArray> current = new java.util.LinkedHashMap<>();
        for (Parameter p : params) {
            current.put(p.getId(), replicas.get(0).get(p.getId()));
        }
        return new ParameterSnapshot(manager, current);
    }

    /** Writes {@code snapshot} into every replica, bit for bit; optimizer state is left as it is. */
    public void restore(ParameterSnapshot snapshot) {
        for (Parameter p : params) {
            NDArray saved = snapshot.values().get(p.getId());
            if (saved == null) {
                throw new IllegalArgumentException("The snapshot has no parameter " + p.getId()
                        + ": it was taken from another model.");
            }
            for (ReplicaStore r : replicas) {
                FromScratch.copyInto(saved, r.get(p.getId()));
            }
        }
    }

    /** Replica {@code i}'s parameter values. */
    public ReplicaStore replica(int i) {
        return replicas.get(i);
    }

    /** The number of global steps taken so far. */
    public long getSteps() {
        return steps;
    }

    /** Whether replicas run concurrently, one worker thread per device. */
    public boolean isConcurrent() {
        return !workers.isEmpty();
    }

    /** The rule that keeps the replicas in step. */
    public ReplicaSync getSync() {
        return sync;
    }

    /** What one global step measured: summed loss and number of correct predictions over the batch. */
    public record StepResult(double lossSum, double correct, long examples) {}

    /**
     * One global step on the examples {@code x} and labels {@code y}: split over the replicas,
     * forward and backward on each, then one synchronised update. Fails, leaving the parameters as
     * they were, when the loss is NaN or infinite.
     */
    public StepResult trainStep(NDArray x, NDArray y) {
        long n = x.getShape().get(0);
        int k = devices.size();
        try (NDManager step = manager.newSubManager()) {
            // Everything computed from x and y during this step is freed with it; x and y go back.
            step.tempAttachAll(x, y);
            List<NDArray> state = snapshotState(step);
            FromScratch.Shards shards = FromScratch.splitBatch(x, y, devices);
            double[] lossSum = new double[k];
            double[] correct = new double[k];
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                List<Future<?>> pending = new ArrayList<>();
                for (int i = 0; i < k; i++) {
                    int r = i;
                    NDArray xi = shards.x().get(r);
                    NDArray yi = shards.y().get(r);
                    Runnable work = () -> {
                        NDArray yHat = net.forward(replicas.get(r), new NDList(xi), true).head();
                        NDArray l = loss.evaluate(new NDList(yi), new NDList(yHat));
                        long ni = xi.getShape().get(0);
                        gc.backward(l.mul(sync.lossWeight(ni, n, k)));
                        lossSum[r] = l.getFloat() * ni;
                        correct[r] = Accuracy.accuracy(yHat, yi);
                    };
                    if (workers.isEmpty()) {
                        work.run();
                    } else {
                        pending.add(workers.get(r).submit(work));
                    }
                }
                for (Future<?> f : pending) {
                    join(f);
                }
            }
            double total = 0;
            double right = 0;
            for (int i = 0; i < k; i++) {
                total += lossSum[i];
                right += correct[i];
            }
            if (!Double.isFinite(total)) {
                zeroGradients();
                restoreState(state);
                throw new IllegalStateException(String.format(Locale.ROOT,
                        "The training loss is %s at step %d (epoch %d): the parameters were left as they "
                        + "were before this step. Lower the learning rate, check the input data for "
                        + "NaN, or use an initialisation such as Init.pytorchLike().",
                        total, steps + 1, epochs + 1));
            }
            sync.step(replicas, params, optimizer);
            steps++;
            return new StepResult(total, right, n);
        }
    }

    /**
     * Trains for {@code numEpochs} epochs over {@code trainSet} (each batch of it is a global batch),
     * evaluating on {@code testSet} (may be null) after each, and returns the metrics of every epoch;
     * {@code listeners} hear of the start and of every epoch (a live figure, for example).
     */
    public List<EpochMetrics> fit(RandomAccessDataset trainSet, RandomAccessDataset testSet, int numEpochs,
            EpochListener... listeners) {
        if (numEpochs < 1) {
            throw new IllegalArgumentException("numEpochs must be at least 1, got " + numEpochs + ".");
        }
        for (EpochListener l : listeners) {
            l.onFitStart(numEpochs);
        }
        List<EpochMetrics> history = new ArrayList<>();
        for (int e = 0; e < numEpochs; e++) {
            EpochMetrics m = trainEpoch(trainSet, testSet);
            history.add(m);
            for (EpochListener l : listeners) {
                l.onEpoch(m);
            }
        }
        return history;
    }

    /** Trains one epoch over {@code trainSet}, evaluates on {@code testSet} (may be null), returns its metrics. */
    public EpochMetrics trainEpoch(RandomAccessDataset trainSet, RandomAccessDataset testSet) {
        ProgressBar bar = progress
                ? new ProgressBar(out, String.format(Locale.ROOT, "epoch %d", epochs + 1), trainSet.size())
                : null;
        double lossSum = 0;
        double correct = 0;
        long examples = 0;
        double seconds = 0;
        try {
            for (Batch batch : trainSet.getData(manager)) {
                try (batch) {
                    long t0 = System.nanoTime();
                    StepResult r = trainStep(batch.getData().head(), batch.getLabels().head());
                    seconds += (System.nanoTime() - t0) / 1e9;
                    lossSum += r.lossSum();
                    correct += r.correct();
                    examples += r.examples();
                    if (bar != null) {
                        bar.step(r.examples(), String.format(Locale.ROOT, "loss %.3f", lossSum / examples));
                    }
                }
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        } catch (TranslateException ex) {
            throw new IllegalStateException("Could not read a training batch: " + ex.getMessage(), ex);
        }
        if (bar != null) {
            bar.finish();
        }
        epochs++;
        double testAcc = Double.NaN;
        if (testSet != null) {
            try {
                testAcc = Accuracy.evaluateAccuracyGpus(net, testSet.getData(manager), devices);
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            } catch (TranslateException ex) {
                throw new IllegalStateException("Could not read a test batch: " + ex.getMessage(), ex);
            }
        }
        return new EpochMetrics(epochs, lossSum / examples, correct / examples, testAcc, seconds,
                examples / seconds);
    }

    /** Copies of replica 0's untrained state (BatchNorm running statistics), which a forward pass changes. */
    private List<NDArray> snapshotState(NDManager step) {
        List<NDArray> copies = new ArrayList<>();
        for (Parameter p : params) {
            if (!p.requiresGradient()) {
                NDArray c = replicas.get(0).get(p.getId()).duplicate();
                c.attach(step);
                copies.add(c);
            }
        }
        return copies;
    }

    private void restoreState(List<NDArray> state) {
        int j = 0;
        for (Parameter p : params) {
            if (!p.requiresGradient()) {
                for (ReplicaStore r : replicas) {
                    FromScratch.copyInto(state.get(j), r.get(p.getId()));
                }
                j++;
            }
        }
    }

    private void zeroGradients() {
        for (ReplicaStore r : replicas) {
            for (Parameter p : params) {
                if (p.requiresGradient()) {
                    try (NDArray g = r.get(p.getId()).getGradient()) {
                        FromScratch.zero(g);
                    }
                }
            }
        }
    }

    private static void join(Future<?> f) {
        try {
            f.get();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a replica.", ex);
        } catch (ExecutionException ex) {
            Throwable c = ex.getCause();
            if (c instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException("A replica failed: " + c, c);
        }
    }

    /** Stops the worker threads and frees the replica copies; the block keeps its trained parameters. */
    @Override
    public void close() {
        workers.forEach(ExecutorService::shutdownNow);
        manager.close();
    }

    /** Configures a {@link DataParallelTrainer}, DJL style. */
    public static final class Builder {
        private final Block net;
        private List<Device> devices;
        private Loss loss = Loss.softmaxCrossEntropyLoss();
        private Optimizer optimizer;
        private ReplicaSync sync = GradientAveraging.mean();
        private Initializer initializer = Init.pytorchLike();
        private Shape inputShape;
        private Boolean concurrent;
        private boolean progress = ProgressBar.enabledByDefault();
        private PrintStream out = System.out;

        private Builder(Block net) {
            if (net == null) {
                throw new IllegalArgumentException("DataParallelTrainer needs a block to train.");
            }
            this.net = net;
        }

        /** The devices, one replica each: {@code Devices.of(k)} gives k GPUs or k virtual CPU replicas. */
        public Builder setDevices(List<Device> devices) {
            if (devices == null || devices.isEmpty()) {
                throw new IllegalArgumentException(
                        "DataParallelTrainer needs at least one device (got none): use Devices.of(k) with k >= 1.");
            }
            devices.forEach(Devices::check);
            this.devices = devices;
            return this;
        }

        /** SGD with a fixed learning rate {@code lr}, the lessons' optimizer. */
        public Builder optLearningRate(float lr) {
            this.optimizer = Optimizer.sgd().setLearningRateTracker(Tracker.fixed(lr)).build();
            return this;
        }

        /** The optimizer; it updates once per global step whatever the number of replicas. */
        public Builder optOptimizer(Optimizer optimizer) {
            this.optimizer = optimizer;
            return this;
        }

        /** The loss, by default softmax cross-entropy (a mean over the examples). */
        public Builder optLoss(Loss loss) {
            this.loss = loss;
            return this;
        }

        /** The rule that keeps replicas in step, by default {@link GradientAveraging#mean()}. */
        public Builder optSync(ReplicaSync sync) {
            this.sync = sync;
            return this;
        }

        /** The weight initialisation used when the block is not initialised yet (default {@link Init#pytorchLike()}). */
        public Builder optInitializer(Initializer initializer) {
            this.initializer = initializer;
            return this;
        }

        /** The input shape with which to initialise the block when it is not initialised yet. */
        public Builder optInputShape(Shape inputShape) {
            this.inputShape = inputShape;
            return this;
        }

        /** Forces worker threads on or off (default: on for several distinct devices, off for virtual replicas). */
        public Builder optConcurrent(boolean concurrent) {
            this.concurrent = concurrent;
            return this;
        }

        /** Turns the per-epoch progress bar on or off (default: on unless {@code D2L_PROGRESS=false}). */
        public Builder optProgress(boolean progress) {
            this.progress = progress;
            return this;
        }

        /** Where the progress bar is written (default {@code System.out}). */
        public Builder optOutput(PrintStream out) {
            this.out = out;
            return this;
        }

        /** Builds the trainer: initialises the block if needed and makes the replicas. */
        public DataParallelTrainer build() {
            if (devices == null) {
                throw new IllegalArgumentException(
                        "No devices set: call setDevices(Devices.of(k)) on the builder.");
            }
            if (optimizer == null) {
                throw new IllegalArgumentException(
                        "No optimizer set: call optLearningRate(lr) or optOptimizer(...) on the builder.");
            }
            return new DataParallelTrainer(this);
        }
    }
}
