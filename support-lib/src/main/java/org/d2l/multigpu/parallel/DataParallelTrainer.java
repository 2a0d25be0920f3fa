package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.util.ProgressBar;
import ai.djl.translate.TranslateException;
import ai.djl.util.Pair;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.eval.Accuracy;
import org.d2l.multigpu.models.Init;
import org.d2l.multigpu.precision.LossScale;
import org.d2l.multigpu.precision.ParameterBytes;
import org.d2l.multigpu.precision.PrecisionPolicy;
import org.d2l.multigpu.runtime.CellOutput;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.runtime.KernelIo;
import org.d2l.multigpu.runtime.NoGrad;

/**
 * Trains a DJL block on k replicas, one per device: on k GPUs each replica runs on its own worker
 * thread; on a CPU the k replicas are virtual and run one after another, computing exactly what k
 * devices would. Every global step splits the batch, runs forward and backward per replica, and
 * brings the replicas in step with a {@link ReplicaSync} rule (by default {@link GradientAveraging#mean()}).
 * How the replicas compute is asked of a {@link PrecisionPolicy}: with {@code optDataType(DataType.FLOAT16)}
 * they compute in float16 against float32 master weights with dynamic loss scaling; the block's own
 * arrays stay the float32 master of replica 0, on which the test accuracy is evaluated.
 */
public final class DataParallelTrainer implements AutoCloseable {

    /**
     * PyTorch allows one gradient collector per process: a step waits here for another thread's
     * step (say, of a run that Kernel &gt; Interrupt is stopping) instead of failing.
     */
    private static final Object COLLECTING = new Object();

    private final Block net;
    private final List<Device> devices;
    private final Loss loss;
    private final Optimizer optimizer;
    private final ReplicaSync sync;
    private final boolean progress;
    private final boolean prefetch;
    private final NDManager manager;
    /** The manager of the block's parameters when this trainer initialised them, freed by close(); else null. */
    private final NDManager ownParameters;
    /** The parameters the rule updates, one store per replica: float32 (replica 0's are the block's own), or pure float16's. */
    private final Replicas masters;
    /** How the replicas compute (FLOAT32 on the masters, or FLOAT16 copies of them). */
    private final PrecisionPolicy precision;
    private final ReplicaWorkers workers;
    private final List<EpochMetrics> history = new ArrayList<>();
    private final EpochTally tally = new EpochTally();
    private long steps;

    private DataParallelTrainer(TrainerSettings<?> s) {
        Djl.setup();
        this.net = s.net;
        this.devices = List.copyOf(s.devices);
        this.loss = s.loss;
        this.optimizer = s.optimizer;
        this.sync = s.sync;
        this.progress = s.progress;
        this.prefetch = s.prefetch;
        Device home = devices.get(0);
        this.manager = NDManager.newBaseManager(home);
        if (net.isInitialized()) {
            ownParameters = null; // the caller's: they outlive close()
        } else {
            Init.weights(net, s.initializer);
            ownParameters = NDManager.newBaseManager(home);
            net.initialize(ownParameters, DataType.FLOAT32, s.inputShape);
        }
        List<Parameter> params = new ArrayList<>();
        for (Pair<String, Parameter> p : net.getParameters()) {
            NDArray a = p.getValue().getArray();
            if (!a.getDevice().equals(home)) {
                throw new IllegalArgumentException("The block's parameter " + p.getKey() + " lives on "
                        + a.getDevice() + " but replica 0 trains on " + home + ": initialise the block on the first device.");
            }
            if (p.getValue().requiresGradient()) {
                a.setRequiresGradient(true);
            }
            params.add(p.getValue());
        }
        precision = PrecisionPolicy.create(s.dataType, s.masterWeights, s.lossScaler, net, devices, params, manager);
        masters = new Replicas(precision.masters(), params);
        workers = new ReplicaWorkers(devices, s.concurrent);
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

    /** Replica {@code i}'s parameter values (in FLOAT16, the float16 ones it computes with). */
    public ReplicaStore replica(int i) {
        return precision.replicas().get(i);
    }

    /** Replica {@code i}'s master, the store the rule updates (the same as {@link #replica} in FLOAT32), for tests. */
    ReplicaStore master(int i) {
        return masters.get(i);
    }

    /** The number of global steps taken so far (in FLOAT16 including skipped ones). */
    public long getSteps() {
        return steps;
    }

    /** Whether replicas run on worker threads (by default one per device when there are several devices). */
    public boolean isConcurrent() {
        return workers.concurrent();
    }

    /** The data type the replicas compute in, FLOAT32 or FLOAT16. */
    public DataType getDataType() {
        return precision.dataType();
    }

    /** The bytes of optimizer state each replica holds now (index i for replica i), from the optimizer's own arrays. */
    public long[] optimizerStateBytes() {
        return sync.optimizerStateBytes(masters, optimizer);
    }

    /** The rule that keeps the replicas in step (gradient or parameter averaging). */
    public ReplicaSync getSync() {
        return sync;
    }

    /** The running loss scale of FLOAT16 training (current scale, skipped steps), or null without loss scaling. */
    public LossScale getLossScale() {
        return precision.lossScale();
    }

    /** How the replicas compute, in words (FLOAT32, FLOAT16 with float32 master weights, or pure FLOAT16). */
    public String describePrecision() {
        return precision.describe();
    }

    /**
     * The bytes of this trainer's parameters, gradients, master weights and optimizer state over all
     * replicas, measured from the arrays, and the bytes its rule synchronised in the last step.
     */
    public ParameterBytes parameterBytes() {
        return ParameterBytes.of(precision.replicas(), precision.masters(), masters.parameters(),
                OptimizerState.of(optimizer).bytes(), tally.lastSyncBytes);
    }

    /** A copy of replica 0's parameters and running statistics; {@link #restore} writes it into every replica. */
    public ParameterSnapshot snapshot() {
        return masters.snapshot(manager);
    }

    /** Writes {@code snapshot} into every replica, bit for bit; optimizer state is left as it is. */
    public void restore(ParameterSnapshot snapshot) {
        try (NoGrad g = NoGrad.scope(); NDManager tmp = manager.newSubManager()) {
            masters.restore(snapshot);
            precision.mastersChanged(tmp);
        }
    }

    /** What one global step (or round) measured: summed loss and number of correct predictions over its examples. */
    public record StepResult(double lossSum, double correct, long examples) {}

    /**
     * One global step on the examples {@code x} and labels {@code y}: split over the replicas,
     * forward and backward on each, then one synchronised update (with {@link ParameterAveraging},
     * one round in which worker i takes shard i as its minibatch). A batch of fewer examples than
     * replicas (the last of an epoch, say) trains on as many replicas as it has examples, each shard
     * weighted by its share, which is what one device would do with it. Fails, leaving the parameters as
     * they were, when the loss is NaN or infinite; in FLOAT16, a step whose gradients overflow is
     * skipped instead (parameters unchanged, loss scale halved).
     */
    public StepResult trainStep(NDArray x, NDArray y) {
        try (NoGrad g = NoGrad.scope(); NDManager step = manager.newSubManager()) {
            // Everything computed from x and y during this step is freed with it; x and y go back.
            step.tempAttachAll(x, y);
            List<NDList> shards = Devices.split(x, y, devices);
            return run(Minibatches.part(shards, 0), Minibatches.part(shards, 1), step);
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
        long n = xs.stream().mapToLong(xi -> xi.getShape().get(0)).sum();
        StepRollback rollback = new StepRollback(precision.replicas(), masters.parameters(), step);
        double[] lossSum = new double[active];
        double[] correct = new double[active];
        synchronized (COLLECTING) {
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                workers.runEach(active, r -> {
                    long ni = xs.get(r).getShape().get(0);
                    NDList out; // output, loss, weighted loss; the forward pass's other arrays go before the
                    // backward pass, as in Python: autograd frees what it keeps as it goes (lower memory peak)
                    try (NDManager forward = step.newSubManager()) {
                        forward.tempAttachAll(xs.get(r));
                        NDArray yHat = precision.output(net.forward(precision.replicas().get(r),
                                new NDList(precision.input(xs.get(r))), true).head(), r);
                        NDArray l = loss.evaluate(new NDList(ys.get(r)), new NDList(yHat));
                        out = new NDList(yHat, l, l.mul(sync.lossWeight(ni, n, devices.size()) * precision.lossFactor()));
                        out.attach(step);
                    }
                    gc.backward(out.get(2));
                    lossSum[r] = out.get(1).getFloat() * ni;
                    correct[r] = Accuracy.accuracy(out.get(0), ys.get(r));
                });
            } catch (RuntimeException ex) {
                rollback.undo();
                throw ex;
            }
        }
        double sum = Arrays.stream(lossSum).sum();
        StepResult result = new StepResult(sum, Arrays.stream(correct).sum(), n);
        if (!Double.isFinite(sum)) {
            rollback.undo();
            String unit = sync.ownMinibatches() ? "round" : "step";
            throw new IllegalStateException(String.format(Locale.ROOT,
                    "The training loss is %s at %s %d (epoch %d): the parameters were left as they "
                    + "were before this %s. Lower the learning rate, check the input data for "
                    + "NaN, or use an initialisation such as Init.pytorchLike().",
                    sum, unit, steps + 1, history.size() + 1, unit));
        }
        steps++;
        if (!precision.gradientsToMasters(active, step)) {
            // A gradient overflowed in float16: skip this step everywhere (the loss scale was halved).
            rollback.undo();
            tally.skipped++;
            return result;
        }
        masters.roundTaken(active);
        tally.synced(sync.step(masters, optimizer, active));
        precision.mastersChanged(step);
        precision.stepTaken();
        return result;
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
        int k = devices.size();
        if (sync.ownMinibatches() && trainSet.size() < k) {
            throw new IllegalArgumentException("The training set has " + trainSet.size() + " example(s), fewer than the "
                    + k + " workers that each need a minibatch: use more data (DATASET_LIMIT) or fewer workers.");
        }
        ProgressBar bar = progress ? new ProgressBar("epoch " + (history.size() + 1), trainSet.size()) : null;
        tally.reset();
        CellOutput.remember(); // where the message of an interrupt goes, should the kernel end the cell first
        try (NoGrad g = NoGrad.scope();
                Minibatches batches = new Minibatches(trainSet, manager, prefetch, sync.ownMinibatches() ? k : 1)) {
            for (List<NDList> group = nextGroup(batches, bar); !group.isEmpty(); group = nextGroup(batches, bar)) {
                long t0 = System.nanoTime();
                StepResult r = sync.ownMinibatches()
                        ? trainRound(Minibatches.part(group, 0), Minibatches.part(group, 1))
                        : trainStep(group.get(0).get(0), group.get(0).get(1));
                tally.add(r, (System.nanoTime() - t0) / 1e9);
                batches.release();
                if (bar != null) {
                    long seen = tally.examples;
                    String loss = String.format(Locale.ROOT, "loss %.3f", tally.lossSum / tally.examples);
                    KernelIo.run(() -> bar.update(seen, loss)); // printed here, it could swallow an interrupt
                }
            }
            finishSync();
        }
        double testAcc = Double.NaN;
        if (testSet != null) {
            try (NoGrad g = NoGrad.scope()) {
                testAcc = Accuracy.evaluateAccuracyGpus(net, testSet.getData(manager), devices);
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            } catch (TranslateException ex) {
                throw new IllegalStateException("Could not read a test batch: " + ex.getMessage(), ex);
            }
        }
        LossScale scale = precision.lossScale();
        EpochMetrics m = tally.metrics(history.size() + 1, testAcc, scale == null ? Double.NaN : scale.scale(),
                optimizerStateBytes());
        history.add(m);
        return m;
    }

    /** The next step's batches (none at the end of the epoch), or a stop that says where when interrupted. */
    private List<NDList> nextGroup(Minibatches batches, ProgressBar bar) {
        try {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            return batches.next();
        } catch (InterruptedException ex) {
            finishSync();
            TrainingInterruptedException stop = new TrainingInterruptedException(history.size() + 1, tally.steps,
                    history, String.format(Locale.ROOT, "getHistory() keeps the %d finished epoch(s); call "
                            + "fit(...) again to continue training from here.", history.size()));
            // JJava ends the cell at once on an interrupt and drops what the cell throws later: say it here too.
            CellOutput.println((bar != null ? "\n" : "") + stop.getMessage());
            throw stop;
        }
    }

    /** The metrics of every epoch this trainer has finished, across {@code fit} calls. */
    public List<EpochMetrics> getHistory() {
        return List.copyOf(history);
    }

    /** The rule's end-of-period synchronisation, copied into what the replicas compute with. */
    private void finishSync() {
        long bytes = sync.finish(masters, optimizer);
        if (bytes > 0) {
            try (NDManager tmp = manager.newSubManager()) {
                precision.mastersChanged(tmp);
            }
        }
        tally.synced(bytes);
    }

    /**
     * Stops the worker threads and frees what this trainer made: the replica copies, and the block's
     * parameters if it initialised them (initialise the block yourself to use it after close()).
     */
    @Override
    public void close() {
        workers.close();
        manager.close();
        if (ownParameters != null) {
            ownParameters.close();
        }
    }

    /** Configures a {@link DataParallelTrainer}, DJL style. */
    public static final class Builder extends TrainerSettings<Builder> {

        private Builder(Block net) {
            super(net);
        }

        /** Builds the trainer: initialises the block if needed and makes the replicas. */
        public DataParallelTrainer build() {
            return new DataParallelTrainer(validated());
        }
    }
}
