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
import ai.djl.training.optimizer.Nag;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.translate.TranslateException;
import ai.djl.util.Pair;
import java.io.IOException;
import java.io.UncheckedIOException;
import ai.djl.training.util.ProgressBar;
import java.util.ArrayList;
import java.util.Iterator;
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
import org.d2l.multigpu.runtime.CellOutput;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.runtime.KernelIo;
import org.d2l.multigpu.runtime.NoGrad;

/**
 * Trains a DJL block on k replicas, one per device: on k GPUs each replica runs on its own worker
 * thread; on a CPU the k replicas are virtual and run one after another, computing exactly what k
 * devices would. Every global step splits the batch, runs forward and backward per replica, and
 * brings the replicas in step with a {@link ReplicaSync} (by default {@link GradientAveraging#mean()}).
 * With {@code optDataType(DataType.FLOAT16)} the replicas compute in float16 against float32 master
 * weights with dynamic loss scaling ({@link HalfPrecision}); the block's own arrays stay the float32
 * master of replica 0, on which the test accuracy is evaluated.
 */
public final class DataParallelTrainer implements AutoCloseable {

    private final Block net;
    private final List<Device> devices;
    private final Loss loss;
    private final Optimizer optimizer;
    private final ReplicaSync sync;
    private final boolean progress;
    private final NDManager manager;
    /** The parameters each replica computes with: the masters, or their float16 copies. */
    private final List<ReplicaStore> replicas;
    /** The parameters the rule updates, float32; replica 0's are the block's own arrays. */
    private final List<ReplicaStore> masters = new ArrayList<>();
    /** Float16 compute with float32 masters and loss scaling, or null when training in FLOAT32. */
    private final HalfPrecision half;
    private final List<Parameter> params = new ArrayList<>();
    private final List<ExecutorService> workers = new ArrayList<>();
    /**
     * PyTorch allows one gradient collector per process: a step waits here for another thread's
     * step (say, of a run that Kernel &gt; Interrupt is stopping) instead of failing.
     */
    private static final Object COLLECTING = new Object();
    private final List<EpochMetrics> history = new ArrayList<>();
    private final ExecutorService prefetcher;
    private int epochs;
    private long steps;
    private long syncs;
    private long syncBytes;
    private long skipped;

    private DataParallelTrainer(Builder b) {
        Djl.setup();
        this.net = b.net;
        this.devices = List.copyOf(b.devices);
        this.loss = b.loss;
        this.optimizer = b.optimizer;
        this.sync = b.sync;
        this.progress = b.progress;
        this.prefetcher = b.prefetch ? Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "prefetch");
            t.setDaemon(true);
            return t;
        }) : null;
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
        masters.add(ReplicaStore.of(net, manager));
        for (int i = 1; i < devices.size(); i++) {
            masters.add(ReplicaStore.copyOf(net, devices.get(i), manager, true));
        }
        half = b.dataType == DataType.FLOAT16 ? new HalfPrecision(net, devices, manager, b.lossScaler) : null;
        replicas = half == null ? masters : half.replicas();
        if (half != null) {
            HalfPrecision.allocateGradients(masters, params, manager);
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

    /** The block being trained; its own parameters are replica 0's (in FLOAT16, replica 0's float32 master). */
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
            current.put(p.getId(), masters.get(0).get(p.getId()));
        }
        return new ParameterSnapshot(manager, current);
    }

    /** Writes {@code snapshot} into every replica, bit for bit; optimizer state is left as it is. */
    public void restore(ParameterSnapshot snapshot) {
        try (NoGrad g = NoGrad.scope()) {
            restoreInto(snapshot);
        }
    }

    private void restoreInto(ParameterSnapshot snapshot) {
        for (Parameter p : params) {
            NDArray saved = snapshot.values().get(p.getId());
            if (saved == null) {
                throw new IllegalArgumentException("The snapshot has no parameter " + p.getId()
                        + ": it was taken from another model.");
            }
            for (ReplicaStore r : masters) {
                FromScratch.copyInto(saved, r.get(p.getId()));
            }
        }
        if (half != null) {
            try (NDManager tmp = manager.newSubManager()) {
                half.copyFromMasters(masters, params, tmp);
            }
        }
    }

    /** Replica {@code i}'s parameter values (in FLOAT16, the float16 ones it computes with). */
    public ReplicaStore replica(int i) {
        return replicas.get(i);
    }

    /** Replica {@code i}'s float32 master (the same store as {@link #replica} in FLOAT32), for tests. */
    ReplicaStore master(int i) {
        return masters.get(i);
    }

    /** The number of global steps taken so far (in FLOAT16 including skipped ones). */
    public long getSteps() {
        return steps;
    }

    /** Whether replicas run concurrently, one worker thread per device. */
    public boolean isConcurrent() {
        return !workers.isEmpty();
    }

    /** The data type the replicas compute in, FLOAT32 or FLOAT16. */
    public DataType getDataType() {
        return half == null ? DataType.FLOAT32 : DataType.FLOAT16;
    }

    /** The loss scaler of FLOAT16 training, or null in FLOAT32. */
    public LossScaler getLossScaler() {
        return half == null ? null : half.scaler();
    }

    /** The rule that keeps the replicas in step. */
    public ReplicaSync getSync() {
        return sync;
    }

    /** What one global step (or round) measured: summed loss and number of correct predictions over its examples. */
    public record StepResult(double lossSum, double correct, long examples) {}

    /**
     * One global step on the examples {@code x} and labels {@code y}: split over the replicas,
     * forward and backward on each, then one synchronised update (with {@link ParameterAveraging},
     * one round in which worker i takes shard i as its minibatch). Fails, leaving the parameters as
     * they were, when the loss is NaN or infinite; in FLOAT16, a step whose gradients overflow is
     * skipped instead (parameters unchanged, loss scale halved).
     */
    public StepResult trainStep(NDArray x, NDArray y) {
        try (NoGrad g = NoGrad.scope(); NDManager step = manager.newSubManager()) {
            // Everything computed from x and y during this step is freed with it; x and y go back.
            step.tempAttachAll(x, y);
            FromScratch.Shards shards = FromScratch.splitBatch(x, y, devices);
            return run(shards.x(), shards.y(), step);
        }
    }

    /**
     * One round of parameter averaging: worker i takes a full local step on its own minibatch
     * ({@code xs.get(i)}, {@code ys.get(i)}); fewer minibatches than workers make a partial round.
     * Fails, leaving the parameters as they were before the round, when a loss is NaN or infinite.
     */
    public StepResult trainRound(List<NDArray> xs, List<NDArray> ys) {
        if (!sync.ownMinibatches()) {
            throw new IllegalStateException("trainRound gives each worker its own minibatch, which is "
                    + "parameter averaging; with " + sync.getClass().getSimpleName()
                    + " call trainStep(x, y) with the global batch.");
        }
        if (xs.isEmpty() || xs.size() != ys.size() || xs.size() > devices.size()) {
            throw new IllegalArgumentException("A round takes between 1 and " + devices.size()
                    + " minibatches (one per worker) with as many label arrays; got " + xs.size()
                    + " and " + ys.size() + ".");
        }
        try (NoGrad g = NoGrad.scope(); NDManager step = manager.newSubManager()) {
            List<NDArray> xd = new ArrayList<>();
            List<NDArray> yd = new ArrayList<>();
            for (int i = 0; i < xs.size(); i++) {
                step.tempAttachAll(xs.get(i), ys.get(i));
                xd.add(xs.get(i).toDevice(devices.get(i), false));
                yd.add(ys.get(i).toDevice(devices.get(i), false));
            }
            return run(xd, yd, step);
        }
    }

    /** Forward and backward on the first {@code xs.size()} replicas, then the rule's update. */
    private StepResult run(List<NDArray> xs, List<NDArray> ys, NDManager step) {
        int active = xs.size();
        long n = 0;
        for (NDArray xi : xs) {
            n += xi.getShape().get(0);
        }
        long total = n;
        List<List<NDArray>> state = snapshotState(step);
        double[] lossSum = new double[active];
        double[] correct = new double[active];
        synchronized (COLLECTING) {
            backward(xs, ys, total, state, lossSum, correct);
        }
        double sum = 0;
        double right = 0;
        for (int i = 0; i < active; i++) {
            sum += lossSum[i];
            right += correct[i];
        }
        if (!Double.isFinite(sum)) {
            zeroGradients();
            restoreState(state);
            throw new IllegalStateException(String.format(Locale.ROOT,
                    "The training loss is %s at %s %d (epoch %d): the parameters were left as they "
                    + "were before this %s. Lower the learning rate, check the input data for "
                    + "NaN, or use an initialisation such as Init.pytorchLike().",
                    sum, unit(), steps + 1, epochs + 1, unit()));
        }
        if (half != null && !half.unscaleInto(masters, params, active, step)) {
            // A gradient overflowed in float16: skip this step everywhere and halve the loss scale.
            zeroGradients();
            restoreState(state);
            half.scaler().stepSkipped();
            skipped++;
            steps++;
            return new StepResult(sum, right, n);
        }
        long bytes = sync.step(masters, params, optimizer, active);
        if (half != null) {
            half.copyFromMasters(masters, params, step);
            half.scaler().stepTaken();
        }
        countSync(bytes);
        steps++;
        return new StepResult(sum, right, n);
    }

    /** Forward and backward of every active replica under the one gradient collector. */
    private void backward(List<NDArray> xs, List<NDArray> ys, long total, List<List<NDArray>> state,
            double[] lossSum, double[] correct) {
        int k = devices.size();
        int active = xs.size();
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            List<Future<?>> pending = new ArrayList<>();
            for (int i = 0; i < active; i++) {
                int r = i;
                NDArray xi = xs.get(r);
                NDArray yi = ys.get(r);
                Runnable work = () -> {
                    NDArray in = half == null ? xi : HalfPrecision.input(xi);
                    NDArray out = net.forward(replicas.get(r), new NDList(in), true).head();
                    NDArray yHat = half == null ? out : half.toFloat32(out, r);
                    NDArray l = loss.evaluate(new NDList(yi), new NDList(yHat));
                    long ni = xi.getShape().get(0);
                    float weight = sync.lossWeight(ni, total, k);
                    gc.backward(l.mul(half == null ? weight : weight * half.scaler().scale()));
                    lossSum[r] = l.getFloat() * ni;
                    correct[r] = Accuracy.accuracy(yHat, yi);
                };
                if (workers.isEmpty()) {
                    work.run();
                } else {
                    pending.add(workers.get(r).submit(work));
                }
            }
            joinAll(pending);
        } catch (RuntimeException ex) {
            zeroGradients();
            restoreState(state);
            throw ex;
        }
    }

    /**
     * Trains for {@code numEpochs} epochs over {@code trainSet} (each batch of it is a global batch,
     * or with {@link ParameterAveraging} one worker's minibatch), evaluating on {@code testSet} (may
     * be null) after each, and returns the metrics of every epoch; {@code listeners} hear of the
     * start and of every epoch (a live figure, for example). An interrupt of the calling thread
     * stops it at the next step with a {@link TrainingInterruptedException}.
     */
    public List<EpochMetrics> fit(RandomAccessDataset trainSet, RandomAccessDataset testSet, int numEpochs,
            EpochListener... listeners) {
        if (numEpochs < 1) {
            throw new IllegalArgumentException("numEpochs must be at least 1, got " + numEpochs + ".");
        }
        for (EpochListener l : listeners) {
            l.onFitStart(numEpochs);
        }
        List<EpochMetrics> run = new ArrayList<>();
        for (int e = 0; e < numEpochs; e++) {
            EpochMetrics m = trainEpoch(trainSet, testSet);
            run.add(m);
            for (EpochListener l : listeners) {
                l.onEpoch(m);
            }
        }
        return run;
    }

    /**
     * Trains one epoch over {@code trainSet}, evaluates on {@code testSet} (may be null), returns its
     * metrics; the epoch ends with identical replicas under both rules. When the calling thread is
     * interrupted it stops at the next step boundary: every replica holds the parameters after the
     * last completed step (with parameter averaging, their average), no collector or worker is left
     * running, and a {@link TrainingInterruptedException} says where it stopped.
     */
    public EpochMetrics trainEpoch(RandomAccessDataset trainSet, RandomAccessDataset testSet) {
        try (NoGrad g = NoGrad.scope()) {
            return epoch(trainSet, testSet);
        }
    }

    private EpochMetrics epoch(RandomAccessDataset trainSet, RandomAccessDataset testSet) {
        int k = devices.size();
        if (sync.ownMinibatches() && trainSet.size() < k) {
            throw new IllegalArgumentException("The training set has " + trainSet.size() + " example(s), fewer than the "
                    + k + " workers that each need a minibatch: use more data (DATASET_LIMIT) or fewer workers.");
        }
        int perStep = sync.ownMinibatches() ? k : 1;
        ProgressBar bar = progress ? new ProgressBar("epoch " + (epochs + 1), trainSet.size()) : null;
        double lossSum = 0;
        double correct = 0;
        long examples = 0;
        double seconds = 0;
        long stepsDone = 0;
        syncs = 0;
        syncBytes = 0;
        skipped = 0;
        List<NDArray> xs = new ArrayList<>();
        List<NDArray> ys = new ArrayList<>();
        // The minibatches of a round are held by a manager of ours: DJL's iterator frees its own
        // batches as soon as it reports that no batch is left, before a last partial round has run.
        NDManager held = manager.newSubManager();
        CellOutput.remember(); // where the message of an interrupt goes, should the kernel end the cell first
        try {
            Iterator<Batch> it = batches(trainSet).iterator();
            boolean more = true;
            while (more) {
                if (Thread.interrupted()) {
                    throw interrupted(stepsDone, bar);
                }
                try {
                    more = it.hasNext();
                    if (more) {
                        try (Batch b = it.next()) {
                            NDArray x = b.getData().head();
                            NDArray y = b.getLabels().head();
                            x.attach(held);
                            y.attach(held);
                            xs.add(x);
                            ys.add(y);
                        }
                    }
                } catch (RuntimeException ex) {
                    if (causedByInterrupt(ex)) {
                        throw interrupted(stepsDone, bar); // interrupted while waiting for a prefetched batch
                    }
                    throw ex;
                }
                if (xs.size() == perStep || (!more && !xs.isEmpty())) {
                    long t0 = System.nanoTime();
                    StepResult r = sync.ownMinibatches() ? trainRound(xs, ys) : trainStep(xs.get(0), ys.get(0));
                    seconds += (System.nanoTime() - t0) / 1e9;
                    xs.clear();
                    ys.clear();
                    held.close();
                    held = manager.newSubManager();
                    lossSum += r.lossSum();
                    correct += r.correct();
                    examples += r.examples();
                    stepsDone++;
                    if (bar != null) {
                        long seen = examples;
                        String loss = String.format(Locale.ROOT, "loss %.3f", lossSum / examples);
                        KernelIo.run(() -> bar.update(seen, loss)); // printed here, it could swallow an interrupt
                    }
                }
            }
        } finally {
            held.close();
        }
        finishSync();
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
        EpochMetrics m = new EpochMetrics(epochs, lossSum / examples, correct / examples, testAcc, seconds,
                examples / seconds, syncs, syncBytes, skipped, half == null ? Double.NaN : half.scaler().scale());
        history.add(m);
        return m;
    }

    /** The metrics of every epoch this trainer has finished, across {@code fit} calls. */
    public List<EpochMetrics> getHistory() {
        return List.copyOf(history);
    }

    private Iterable<Batch> batches(RandomAccessDataset trainSet) {
        try {
            return prefetcher == null ? trainSet.getData(manager) : trainSet.getData(manager, prefetcher);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        } catch (TranslateException ex) {
            throw new IllegalStateException("Could not read a training batch: " + ex.getMessage(), ex);
        }
    }

    /** Ends an interrupted epoch with identical replicas and says where it stopped. */
    private TrainingInterruptedException interrupted(long stepsDone, ProgressBar bar) {
        finishSync();
        TrainingInterruptedException stop = new TrainingInterruptedException(epochs + 1, stepsDone, history,
                String.format(Locale.ROOT, "getHistory() keeps the %d finished epoch(s); call fit(...) again to "
                        + "continue training from here.", history.size()));
        // JJava ends the cell at once on an interrupt and drops what the cell throws later: say it here too.
        CellOutput.println((bar != null ? "\n" : "") + stop.getMessage());
        return stop;
    }

    private static boolean causedByInterrupt(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }

    /** The rule's end-of-period synchronisation, copied into the float16 replicas in FLOAT16. */
    private void finishSync() {
        long bytes = sync.finish(masters, params, optimizer);
        if (half != null && bytes > 0) {
            try (NDManager tmp = manager.newSubManager()) {
                half.copyFromMasters(masters, params, tmp);
            }
        }
        countSync(bytes);
    }

    private void countSync(long bytes) {
        if (bytes > 0) {
            syncs++;
            syncBytes += bytes;
        }
    }

    private String unit() {
        return sync.ownMinibatches() ? "round" : "step";
    }

    /** Copies of every replica's untrained state (BatchNorm running statistics), which a forward pass changes. */
    private List<List<NDArray>> snapshotState(NDManager step) {
        List<List<NDArray>> copies = new ArrayList<>();
        for (ReplicaStore r : replicas) {
            List<NDArray> own = new ArrayList<>();
            for (Parameter p : params) {
                if (!p.requiresGradient()) {
                    NDArray c = r.get(p.getId()).duplicate();
                    c.attach(step);
                    own.add(c);
                }
            }
            copies.add(own);
        }
        return copies;
    }

    private void restoreState(List<List<NDArray>> state) {
        for (int i = 0; i < replicas.size(); i++) {
            int j = 0;
            for (Parameter p : params) {
                if (!p.requiresGradient()) {
                    FromScratch.copyInto(state.get(i).get(j++), replicas.get(i).get(p.getId()));
                }
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

    /**
     * Waits for every replica's work, even when the calling thread is interrupted meanwhile (the
     * interrupt is kept for the loop to see at the next step), so that no worker still runs when the
     * gradient collector closes; then rethrows the first failure.
     */
    private static void joinAll(List<Future<?>> pending) {
        boolean interrupted = false;
        RuntimeException failure = null;
        for (Future<?> f : pending) {
            while (true) {
                try {
                    f.get();
                    break;
                } catch (InterruptedException ex) {
                    interrupted = true;
                } catch (ExecutionException ex) {
                    Throwable c = ex.getCause();
                    if (failure == null) {
                        failure = c instanceof RuntimeException re ? re
                                : new IllegalStateException("A replica failed: " + c, c);
                    }
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Stops the worker threads and frees the replica copies; the block keeps its trained parameters. */
    @Override
    public void close() {
        workers.forEach(ExecutorService::shutdownNow);
        if (prefetcher != null) {
            prefetcher.shutdownNow();
        }
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
        private boolean progress = progressByDefault();
        private boolean prefetch;
        private DataType dataType = DataType.FLOAT32;
        private LossScaler lossScaler;

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

        /**
         * The rule that keeps replicas in step, by default {@link GradientAveraging#mean()}, or
         * {@link ParameterAveraging} (give each trainer its own: it holds the averaging period).
         */
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

        /** Turns DJL's per-epoch progress bar on or off (default: on unless {@code D2L_PROGRESS=false}). */
        public Builder optProgress(boolean progress) {
            this.progress = progress;
            return this;
        }

        /**
         * Loads the next minibatches on a background thread while the replicas train, as
         * ParallelWrapper's {@code prefetchBuffer} does, through DJL's own prefetching (how many
         * batches ahead is the dataset's {@code optPrefetchNumber}, default 2).
         */
        public Builder optPrefetch(boolean prefetch) {
            this.prefetch = prefetch;
            return this;
        }

        /**
         * The data type the replicas compute in: FLOAT32 (the default) or FLOAT16 (float16 forward
         * and backward, float32 master weights, dynamic loss scaling); anything else, BFLOAT16
         * included, is refused here with an {@link IllegalArgumentException}.
         */
        public Builder optDataType(DataType dataType) {
            this.dataType = HalfPrecision.checkTrainable(dataType);
            return this;
        }

        /** The loss scaler for FLOAT16 training (default {@link LossScaler#dynamic()}; give each trainer its own). */
        public Builder optLossScaler(LossScaler lossScaler) {
            this.lossScaler = lossScaler;
            return this;
        }

        /** Whether progress bars are on: env {@code D2L_PROGRESS} or property {@code d2l.progress} = false turns them off. */
        static boolean progressByDefault() {
            String v = System.getenv("D2L_PROGRESS");
            if (v == null) {
                v = System.getProperty("d2l.progress", "true");
            }
            return !v.equalsIgnoreCase("false") && !v.equals("0");
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
            if (optimizer instanceof Nag && "PyTorch".equals(Djl.engine().getEngineName())) {
                // It would fail only at the first update, after the backward passes of a step.
                throw new IllegalArgumentException("DJL's PyTorch engine does not implement Nesterov momentum "
                        + "(Optimizer.nag()): use Optimizer.sgd().setLearningRateTracker(...).optMomentum(0.9f) "
                        + "instead.");
            }
            if (lossScaler != null && dataType != DataType.FLOAT16) {
                throw new IllegalArgumentException("A loss scaler is used only in FLOAT16 training: add "
                        + "optDataType(DataType.FLOAT16) or drop optLossScaler(...).");
            }
            if (dataType == DataType.FLOAT16 && lossScaler == null) {
                lossScaler = LossScaler.dynamic();
            }
            return new DataParallelTrainer(this);
        }
    }
}
