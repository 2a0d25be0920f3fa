package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.dataset.RandomAccessDataset;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.compression.CompressionHook;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.RunListeners;
import org.d2l.multigpu.parallel.DataParallelEpochs.EpochBatches;
import org.d2l.multigpu.parallel.DataParallelEpochs.EpochTally;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.loop.EpochTrainer;
import org.d2l.multigpu.loop.ParameterSnapshot;
import org.d2l.multigpu.loop.TrainingInterruptedException;
import org.d2l.multigpu.loop.TrainingLoop;
import org.d2l.multigpu.models.Init;
import org.d2l.multigpu.optimizer.OptimizerState;
import org.d2l.multigpu.precision.LossScale;
import org.d2l.multigpu.precision.ParameterBytes;
import org.d2l.multigpu.precision.PrecisionPolicy;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.runtime.NoGrad;
import org.d2l.multigpu.step.Phase;
import org.d2l.multigpu.step.StepPhases;

/**
 * Trains a DJL block on k replicas, one per device: on k GPUs each replica runs on its own worker
 * thread; on a CPU the k replicas are virtual and run one after another, computing exactly what k
 * devices would. Every global step splits the batch, runs forward and backward per replica, and
 * brings the replicas in step with a {@link ReplicaSync} rule (by default {@link GradientAveraging#mean()}).
 * How the replicas compute is asked of a {@link PrecisionPolicy}: with {@code optDataType(DataType.FLOAT16)}
 * they compute in float16 against float32 master weights with dynamic loss scaling; the block's own
 * arrays stay the float32 master of replica 0, on which the test accuracy is evaluated.
 * Checkpoints ({@code optCheckpoints}), and what a resumed run reproduces: {@link TrainerState}.
 */
public final class DataParallelTrainer implements AutoCloseable {

    /** The settings the builder checked; read by {@link TrainerState} for checkpoints, as are the fields below. */
    final TrainerConfig config;
    /** The compressor over the collective, whose state checkpoints carry; null without optCompression. */
    final CompressionHook compression;
    final NDManager manager;
    /** The manager of the block's parameters when this trainer initialised them, freed by close(); else null. */
    private final NDManager ownParameters;
    /** The parameters the rule updates, one store per replica: float32 (replica 0's are the block's own), or pure float16's. */
    final ReplicaParameters masters;
    /** How the replicas compute (FLOAT32 on the masters, or FLOAT16 copies of them). */
    final PrecisionPolicy precision;
    /** Runs each global step: the replicas' passes, the rule's update, the phases' times. */
    private final GlobalStep core;
    private final List<EpochMetrics> history = new ArrayList<>();
    private final EpochTally tally = new EpochTally();
    private long steps;
    /** The seed of the data order: epoch e of a shuffled training set is read in an order drawn from (seed, e). */
    private long shuffleSeed;

    private DataParallelTrainer(TrainerConfig c) {
        Djl.setup();
        this.config = c;
        Block net = c.net();
        List<Device> devices = c.devices();
        this.shuffleSeed = c.shuffleSeed();
        Device home = devices.get(0);
        this.manager = NDManager.newBaseManager(home);
        if (net.isInitialized()) {
            ownParameters = null; // the caller's: they outlive close()
        } else {
            Init.weights(net, c.initializer());
            ownParameters = NDManager.newBaseManager(home);
            net.initialize(ownParameters, DataType.FLOAT32, c.inputShape());
        }
        List<Parameter> params = ReplicaParameters.parametersOn(net, home);
        precision = PrecisionPolicy.create(c.dataType(), c.masterWeights(), c.lossScaler(), net, devices, params, manager);
        compression = c.compressor() == null ? null : CompressionHook.of(c.compressor(), c.collective());
        masters = new ReplicaParameters(precision.masters(), params, c.collective(), compression);
        core = new GlobalStep(net, c.loss(), devices, c.sync(), c.optimizer(), masters, precision, c.concurrent(),
                c.syncBatchNorm());
    }

    /** Starts a builder for training {@code net}. */
    public static Builder builder(Block net) {
        return new Builder(net);
    }

    /** The block being trained; its own parameters are replica 0's (in FLOAT16, replica 0's float32 master). */
    public Block getNet() {
        return config.net();
    }

    /** The devices, one per replica. */
    public List<Device> getDevices() {
        return config.devices();
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
    long getSteps() {
        return steps;
    }

    /** Whether replicas run on worker threads (by default one per device when there are several devices). */
    boolean isConcurrent() {
        return core.concurrent();
    }

    /** Whether BatchNorm's statistics are synchronised over the replicas ({@code optSyncBatchNorm}). */
    boolean syncBatchNorm() {
        return core.syncBatchNorm();
    }

    /** The data type the replicas compute in, FLOAT32 or FLOAT16. */
    public DataType getDataType() {
        return precision.dataType();
    }

    /** The bytes of optimizer state each replica holds now (index i for replica i), from the optimizer's own arrays. */
    public long[] optimizerStateBytes() {
        return config.sync().optimizerStateBytes(masters, config.optimizer());
    }

    /** The rule that keeps the replicas in step (gradient or parameter averaging). */
    public ReplicaSync getSync() {
        return config.sync();
    }

    /** The running loss scale of FLOAT16 training (current scale, skipped steps), or null without loss scaling. */
    public LossScale getLossScale() {
        return precision.lossScale();
    }

    /** How the replicas compute, in words (FLOAT32, FLOAT16 with float32 master weights, or pure FLOAT16). */
    String describePrecision() {
        return precision.describe();
    }

    /**
     * The bytes of this trainer's parameters, gradients, master weights and optimizer state over all
     * replicas, measured from the arrays, and the bytes its rule synchronised in the last step.
     */
    public ParameterBytes parameterBytes() {
        return ParameterBytes.of(precision.replicas(), precision.masters(), masters.parameters(),
                OptimizerState.of(config.optimizer()).bytes(), tally.lastSyncBytes());
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
            StepPhases phases = core.beginStep();
            long start = StepPhases.now();
            List<List<NDArray>> xs = new ArrayList<>();
            List<List<NDArray>> ys = new ArrayList<>();
            for (NDList micro : microBatches(x, y)) {
                List<NDList> shards = Devices.split(micro.get(0), micro.get(1), config.devices());
                xs.add(EpochBatches.part(shards, 0));
                ys.add(EpochBatches.part(shards, 1));
            }
            phases.add(0, xs.get(0).size(), Phase.DATA, start);
            return run(xs, ys, step);
        }
    }

    /** The global batch as {@link TrainerSettings#optAccumulate} micro-batches (sizes differing by at most one). */
    private List<NDList> microBatches(NDArray x, NDArray y) {
        long n = x.getShape().get(0);
        int accumulate = config.accumulate();
        if (accumulate == 1) {
            return List.of(new NDList(x, y));
        }
        if (n < accumulate) {
            throw new IllegalArgumentException("A batch of " + n + " example(s) cannot be split into " + accumulate
                    + " micro-batches (optAccumulate): use batches of at least " + accumulate + " examples.");
        }
        long[] ends = Devices.shardEnds(n, accumulate);
        NDList xs = x.split(ends, 0);
        NDList ys = y.split(ends, 0);
        List<NDList> micro = new ArrayList<>();
        for (int i = 0; i < accumulate; i++) {
            micro.add(new NDList(xs.get(i), ys.get(i)));
        }
        return micro;
    }

    /**
     * One round of parameter averaging: worker i takes a full local step on its own minibatch
     * ({@code xs.get(i)}, {@code ys.get(i)}); fewer minibatches than workers make a partial round.
     * Fails, leaving the parameters as they were before the round, when a loss is NaN or infinite.
     */
    public StepResult trainRound(List<NDArray> xs, List<NDArray> ys) {
        EpochBatches.checkRound(config.sync(), xs, ys, config.devices().size());
        try (NoGrad g = NoGrad.scope(); NDManager step = manager.newSubManager()) {
            StepPhases phases = core.beginStep();
            long start = StepPhases.now();
            List<NDArray> x = EpochBatches.onDevices(xs, config.devices(), step);
            List<NDArray> y = EpochBatches.onDevices(ys, config.devices(), step);
            phases.add(0, x.size(), Phase.DATA, start);
            return run(List.of(x), List.of(y), step);
        }
    }

    /**
     * When each phase (data, forward, backward, synchronisation, update) of the last steps ran on each replica,
     * oldest first, at most the last 16; a skipped or failed step is among them.
     */
    public List<StepPhases> recentSteps() {
        return core.recentSteps();
    }

    /** One global step through the core: forward and backward of every micro-batch, then the rule's update. */
    private StepResult run(List<List<NDArray>> xs, List<List<NDArray>> ys, NDManager step) {
        GlobalStep.Outcome o = core.run(xs, ys, step, steps, history.size() + 1);
        steps++;
        if (o.skipped()) {
            tally.skipped();
        } else {
            tally.synced(o.syncBytes());
        }
        return o.result();
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
        return TrainingLoop.fit(epochs(trainSet, testSet), numEpochs, listeners);
    }

    /** This trainer bound to {@code trainSet} and {@code testSet} (may be null), for {@link TrainingLoop}. */
    public EpochTrainer epochs(RandomAccessDataset trainSet, RandomAccessDataset testSet) {
        return new DataParallelEpochs(this, tally, manager, config.prefetch(), trainSet, testSet);
    }

    /**
     * Trains one epoch over {@code trainSet}, evaluates on {@code testSet} (may be null), returns its
     * metrics; the epoch ends with identical replicas under both rules. When the calling thread is
     * interrupted it stops at the next step boundary: every replica holds the parameters after the
     * last completed step (with parameter averaging, their average), no collector or worker is left
     * running, and a {@link TrainingInterruptedException} says where it stopped.
     */
    public EpochMetrics trainEpoch(RandomAccessDataset trainSet, RandomAccessDataset testSet) {
        return epochs(trainSet, testSet).trainEpoch(RunListeners.of(config.progress()));
    }

    /** Whether the run wants a progress line. */
    boolean progress() {
        return config.progress();
    }

    /** The replicas' float32 parameters for evaluation (temporaries held by {@code tmp}). */
    List<ReplicaStore> float32Replicas(NDManager tmp) {
        return precision.float32Replicas(tmp);
    }

    /** Records a finished epoch: its metrics, with the loss scale and the optimizer state bytes at its end. */
    EpochMetrics epochDone(double testAccuracy) {
        LossScale scale = precision.lossScale();
        EpochMetrics m = tally.metrics(history.size() + 1, testAccuracy, scale == null ? Double.NaN : scale.scale(),
                optimizerStateBytes());
        history.add(m);
        return m;
    }

    /** Carries on a checkpointed run: its finished epochs, its global steps and its data order's seed. */
    void resumeRun(List<EpochMetrics> finished, long stepsTaken, long seed) {
        history.clear();
        history.addAll(finished);
        steps = stepsTaken;
        shuffleSeed = seed;
    }

    /** The seed of the data order (see {@link TrainerSettings#optShuffleSeed}). */
    long shuffleSeed() {
        return shuffleSeed;
    }

    /** The metrics of every epoch this trainer has finished, across {@code fit} calls. */
    public List<EpochMetrics> getHistory() {
        return List.copyOf(history);
    }

    /** The rule's end-of-period synchronisation, copied into what the replicas compute with. */
    void finishSync() {
        long bytes = config.sync().finish(masters, config.optimizer());
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
        core.close();
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
