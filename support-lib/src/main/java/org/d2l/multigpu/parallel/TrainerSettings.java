package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.initializer.Initializer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Nag;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.nio.file.Path;
import java.util.List;
import org.d2l.multigpu.checkpoint.CheckpointPolicy;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.Init;
import org.d2l.multigpu.precision.LossScaler;
import org.d2l.multigpu.precision.PrecisionPolicy;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.runtime.Env;

/**
 * The settings of a {@link DataParallelTrainer}, set DJL style through its {@link DataParallelTrainer.Builder}
 * ({@code B}): every setting is a value; what a run changes (averaging period, loss scale) the trainer keeps.
 */
public abstract class TrainerSettings<B extends TrainerSettings<B>> {

    final Block net;
    List<Device> devices;
    Loss loss = Loss.softmaxCrossEntropyLoss();
    Optimizer optimizer;
    ReplicaSync sync = GradientAveraging.mean();
    Initializer initializer = Init.pytorchLike();
    Shape inputShape;
    Boolean concurrent;
    boolean progress = progressByDefault();
    boolean prefetch;
    DataType dataType = DataType.FLOAT32;
    LossScaler lossScaler;
    boolean masterWeights = true;
    CheckpointPolicy checkpoints;
    Long shuffleSeed;
    boolean syncBatchNorm;
    int accumulate = 1;
    Collective collective = Collective.direct();
    Compressor compressor;

    TrainerSettings(Block net) {
        if (net == null) {
            throw new IllegalArgumentException("DataParallelTrainer needs a block to train.");
        }
        this.net = net;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** The devices, one replica each: {@code Devices.of(k)} gives k GPUs or k virtual CPU replicas. */
    public B setDevices(List<Device> devices) {
        if (devices == null || devices.isEmpty()) {
            throw new IllegalArgumentException(
                    "DataParallelTrainer needs at least one device (got none): use Devices.of(k) with k >= 1.");
        }
        devices.forEach(Devices::check);
        this.devices = devices;
        return self();
    }

    /** SGD with a fixed learning rate {@code lr}, the lessons' optimizer. */
    public B optLearningRate(float lr) {
        this.optimizer = Optimizer.sgd().setLearningRateTracker(Tracker.fixed(lr)).build();
        return self();
    }

    /** The optimizer; it updates once per global step whatever the number of replicas. */
    public B optOptimizer(Optimizer optimizer) {
        this.optimizer = optimizer;
        return self();
    }

    /** The loss, by default softmax cross-entropy (a mean over the examples). */
    public B optLoss(Loss loss) {
        this.loss = loss;
        return self();
    }

    /**
     * The rule that keeps replicas in step, by default {@link GradientAveraging#mean()}, with the
     * optimizer state sharded over the replicas {@link GradientAveraging#shardedState()} (ZeRO stage 1),
     * or {@link ParameterAveraging} (a setting: one object may configure several trainers).
     */
    public B optSync(ReplicaSync sync) {
        this.sync = sync;
        return self();
    }

    /** The weight initialisation used when the block is not initialised yet (default {@link Init#pytorchLike()}). */
    public B optInitializer(Initializer initializer) {
        this.initializer = initializer;
        return self();
    }

    /** The input shape with which to initialise the block when it is not initialised yet. */
    public B optInputShape(Shape inputShape) {
        this.inputShape = inputShape;
        return self();
    }

    /**
     * Forces a worker thread per replica on, or all replicas onto the calling thread (default: one
     * thread per device when there are several devices, replicas sharing a device one after another).
     */
    B optConcurrent(boolean concurrent) {
        this.concurrent = concurrent;
        return self();
    }

    /** Turns DJL's per-epoch progress bar on or off (default: on unless {@code D2L_PROGRESS=false}). */
    public B optProgress(boolean progress) {
        this.progress = progress;
        return self();
    }

    /**
     * Loads the next minibatches on a background thread while the replicas train, as
     * ParallelWrapper's {@code prefetchBuffer} does, through DJL's own prefetching (how many
     * batches ahead is the dataset's {@code optPrefetchNumber}, default 2).
     */
    public B optPrefetch(boolean prefetch) {
        this.prefetch = prefetch;
        return self();
    }

    /**
     * The data type the replicas compute in: FLOAT32 (the default) or FLOAT16 (float16 forward
     * and backward, float32 master weights, dynamic loss scaling); anything else, BFLOAT16
     * included, is refused here with an {@link IllegalArgumentException}.
     */
    public B optDataType(DataType dataType) {
        this.dataType = PrecisionPolicy.checkTrainable(dataType);
        return self();
    }

    /** The loss scaling of FLOAT16 training (default {@link LossScaler#dynamic()}); each trainer keeps its own running scale. */
    public B optLossScaler(LossScaler lossScaler) {
        this.lossScaler = lossScaler;
        return self();
    }

    /**
     * Whether FLOAT16 training keeps float32 master weights (the default, with loss scaling); false
     * trains the float16 weights themselves with no loss scaling, as Deeplearning4j's HALF data type
     * does, to compare with: the optimizer's updates and state are float16 and small updates are lost.
     */
    public B optMasterWeights(boolean masterWeights) {
        this.masterWeights = masterWeights;
        return self();
    }

    /**
     * Keeps checkpoints in {@code dir}: after every epoch of {@code fit} and early stopping the parameters,
     * optimizer state, loss scale, data order and metrics history (the last 3 kept); the next {@code fit}
     * resumes from the newest valid one there, saying so in one line, unless {@link #optResume optResume(false)}.
     */
    public B optCheckpoints(Path dir) {
        return optCheckpoints(CheckpointPolicy.in(dir));
    }

    /** Keeps checkpoints as {@code settings} say (folder, how many kept, resume, background writing). */
    public B optCheckpoints(CheckpointPolicy settings) {
        this.checkpoints = settings;
        return self();
    }

    /**
     * Whether {@code fit} resumes from the checkpoints (true, the default) or starts afresh (false), removing
     * the checkpoints of an earlier run from the folder when its first epoch begins; needs {@link #optCheckpoints}.
     */
    public B optResume(boolean resume) {
        if (checkpoints == null) {
            throw new IllegalArgumentException("optResume(...) is a setting of checkpoints: call optCheckpoints(dir) first.");
        }
        this.checkpoints = checkpoints.resume(resume);
        return self();
    }

    /**
     * The seed of the order in which a shuffled training set is read: epoch e in an order drawn from
     * (seed, e). Default: drawn from DJL's random generator when the trainer is built, so that
     * {@code Engine.getInstance().setRandomSeed(...)} before it fixes it; a resumed run takes the checkpoint's.
     */
    public B optShuffleSeed(long seed) {
        this.shuffleSeed = seed;
        return self();
    }

    /**
     * Whether BatchNorm's training statistics are those of the global batch across the replicas (PyTorch's
     * {@code SyncBatchNorm}) instead of each replica's shard: the network's BatchNorm blocks must be
     * {@link org.d2l.multigpu.models.SyncBatchNorm}s ({@code SyncBatchNorm.convert(net)}); the
     * replicas then run their forward passes at the same time, one thread each. Default false.
     */
    public B optSyncBatchNorm(boolean sync) {
        this.syncBatchNorm = sync;
        return self();
    }

    /**
     * Gradient accumulation: every global batch runs as {@code microBatches} micro-batches one after
     * another (each split over the replicas), their gradients add up in the replicas, and the rule
     * synchronises and updates once per global batch, so that a batch whose activations do not fit
     * trains as one step (DDP's {@code no_sync}). Default 1: no accumulation.
     */
    public B optAccumulate(int microBatches) {
        if (microBatches < 1) {
            throw new IllegalArgumentException("optAccumulate needs at least 1 micro-batch per step, got " + microBatches
                    + ".");
        }
        this.accumulate = microBatches;
        return self();
    }

    /**
     * The collective through which the rule moves gradients, parameters and statistics between the replicas:
     * {@link Collective#direct()} (default: sums in replica order on one replica) or {@link Collective#ring()}.
     */
    public B optCollective(Collective collective) {
        if (collective == null) {
            throw new IllegalArgumentException("optCollective needs a collective: Collective.direct() or Collective.ring().");
        }
        this.collective = collective;
        return self();
    }

    /**
     * Gradient compression (gradient averaging only): every step each replica's gradients are allreduced
     * through {@code compressor} ({@link Compressor#float16}, {@link Compressor#threshold}, {@link
     * Compressor#oneBit}, {@link Compressor#powerSgd}) and every replica takes the update itself; what the
     * compressor keeps (residuals, thresholds, Q) is in the checkpoints. Default none.
     */
    public B optCompression(Compressor compressor) {
        this.compressor = compressor;
        return self();
    }

    /** Whether progress bars are on: env {@code D2L_PROGRESS} or property {@code d2l.progress} = false turns them off. */
    static boolean progressByDefault() {
        return Env.isOn("D2L_PROGRESS", true);
    }

    /**
     * These settings, checked and fixed: every option the trainer cannot honour is refused here, in one place,
     * with a clear error, before any work.
     */
    TrainerConfig validated() {
        if (devices == null) {
            throw new IllegalArgumentException("No devices set: call setDevices(Devices.of(k)) on the builder.");
        }
        if (optimizer == null) {
            throw new IllegalArgumentException(
                    "No optimizer set: call optLearningRate(lr) or optOptimizer(...) on the builder.");
        }
        if (optimizer instanceof Nag && "PyTorch".equals(Djl.engine().getEngineName())) {
            // It would fail only at the first update, after the backward passes of a step.
            throw new IllegalArgumentException("DJL's PyTorch engine does not implement Nesterov momentum "
                    + "(Optimizer.nag()): use the jar's org.d2l.multigpu.optimizer.Nesterov.builder()"
                    + ".setLearningRateTracker(...).setMomentum(0.9f).build(), which computes it with NDArray operations.");
        }
        PrecisionPolicy.checkOptions(dataType, masterWeights, lossScaler);
        if (!net.isInitialized() && inputShape == null) {
            throw new IllegalArgumentException("The block is not initialised: give the builder optInputShape(...) "
                    + "(for example new Shape(1, 1, 28, 28)) or initialise the block first.");
        }
        if (checkpoints != null) {
            checkpoints.checkWritable();
        }
        if (accumulate > 1 && sync.ownMinibatches()) {
            throw new IllegalArgumentException("optAccumulate(" + accumulate + ") is for gradient averaging, which "
                    + "synchronises every step: " + sync.describe() + " already synchronises once per period, so "
                    + "lengthen its period (ParameterAveraging.every(N)) instead.");
        }
        if (syncBatchNorm) {
            checkSyncBatchNorm();
        }
        if (compressor != null) {
            checkCompression();
        }
        return new TrainerConfig(net, devices, loss, optimizer, sync, initializer, inputShape, concurrent, progress,
                prefetch, dataType, lossScaler, masterWeights, checkpoints,
                shuffleSeed != null ? shuffleSeed : ai.djl.util.RandomUtils.RANDOM.nextLong(), syncBatchNorm, accumulate,
                collective, compressor);
    }

    private void checkCompression() {
        if (sync.ownMinibatches()) {
            throw new IllegalArgumentException("optCompression compresses the gradients that gradient averaging sums every "
                    + "step; " + sync.describe() + " averages parameters and optimizer state instead, which it does not "
                    + "compress: drop optCompression or use GradientAveraging.mean().");
        }
        if (sync instanceof GradientAveraging g && g.sharded()) {
            throw new IllegalArgumentException("optCompression has every replica update its own copy from the compressed "
                    + "gradients, while GradientAveraging.shardedState() updates each parameter on one owner: choose one "
                    + "(GradientAveraging.mean() with compression, or the sharded state without).");
        }
        if (dataType != DataType.FLOAT32 && !masterWeights) {
            throw new IllegalArgumentException("optCompression compresses float32 gradients, but pure " + dataType
                    + " (optMasterWeights(false)) has " + dataType + " gradients: keep float32 master weights.");
        }
    }

    private void checkSyncBatchNorm() {
        if (sync.ownMinibatches()) {
            throw new IllegalArgumentException("optSyncBatchNorm(true) needs gradient averaging, where the replicas share "
                    + "one global batch; " + sync.describe() + " gives each replica its own minibatch and its own steps.");
        }
        if (dataType != DataType.FLOAT32) {
            throw new IllegalArgumentException("optSyncBatchNorm(true) computes in FLOAT32 only; this trainer is set to "
                    + dataType + ": drop optDataType or the synchronised BatchNorm.");
        }
        int[] count = org.d2l.multigpu.models.SyncBatchNorm.count(net);
        if (count[1] > 0 || count[0] == 0) {
            throw new IllegalArgumentException("optSyncBatchNorm(true): the network has " + count[1] + " BatchNorm block(s) "
                    + "that are not SyncBatchNorm" + (count[0] == 0 ? " and no SyncBatchNorm" : "") + ". Convert them "
                    + "first: net = SyncBatchNorm.convert(net) (org.d2l.multigpu.models), before building the trainer.");
        }
    }
}
