package org.d2l.multigpu.spark.driver;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.training.dataset.RandomAccessDataset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.d2l.multigpu.checkpoint.CheckpointPolicy;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.data.Batches;
import org.d2l.multigpu.eval.Accuracy;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.loop.EpochTrainer;
import org.d2l.multigpu.loop.RunListeners;
import org.d2l.multigpu.loop.TrainingInterruptedException;
import org.d2l.multigpu.loop.TrainingLoop;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.spark.AllreduceEpoch;
import org.d2l.multigpu.spark.CompressionValues;
import org.d2l.multigpu.spark.DriverLink;
import org.d2l.multigpu.spark.EpochFailedException;
import org.d2l.multigpu.spark.Minibatch;
import org.d2l.multigpu.spark.ModelFactory;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ParameterValues;
import org.d2l.multigpu.spark.RankResult;
import org.d2l.multigpu.spark.SplitData;
import org.d2l.multigpu.spark.StepHook;
import org.d2l.multigpu.spark.task.AllreduceTask;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;

/**
 * Synchronous data parallelism on Apache Spark, the way Horovod on Spark and Spark's
 * {@code TorchDistributor} run it: a fit is one barrier stage whose k tasks start together, each holding a
 * replica and its shard of every global batch; they find each other once through
 * {@code BarrierTaskContext.allGather}, connect in a TCP ring, and every step sum their gradients with a
 * bucketed ring allreduce and take the same optimizer update. After each epoch the ranks report to the
 * driver ({@link DriverLink}), which evaluates it, tells the listeners, writes checkpoints and decides
 * whether to stop (early stopping, an interrupt) while the next epoch trains; the ranks stop after the
 * step in which they hear it. The driver keeps the parameters (and optimizer state, and the ranks'
 * compressor state) of the last complete epoch: a failed stage is run again from there, up to Spark's
 * stage attempt limit. With the same data, start, threads and compressor it computes what
 * {@code DataParallelTrainer} with gradient averaging over k replicas computes (bit for bit for k = 2). With checkpoints, the driver's
 * state is written after every epoch and a new trainer resumes from it, ending where an unbroken run ends.
 */
public final class AllreduceTrainer implements AutoCloseable {


    private final ModelFactory model;
    private final OptimizerFactory optimizer;
    private final int partitions;
    private final int bucketElements;
    private final Compressor compressor;
    private final Duration timeout;
    private final int maxAttempts;
    private final StepHook hook;
    private final boolean progress;
    private final JavaSparkContext sc;
    private final Driver driver;
    private final NDManager manager;
    private final Block net;
    private final CheckpointPolicy checkpoints;
    private final List<AllreduceEpoch> log = new ArrayList<>();
    /** Why the last epoch that failed on all its attempts failed, or null. */
    private EpochFailedException lastFailure;
    private final DriverProgress done = new DriverProgress(); // optimizer state, epochs, history; count: steps taken
    /** The last epoch the current fit plans (0: until it stops), for the stage it starts. */
    private int lastPlanned;
    /** The running stage, or null. */
    private AllreduceStage stage;
    /** Spark's job group of this trainer's stages, to cancel one that does not end by itself. */
    private final String group = "d2l-allreduce-" + System.identityHashCode(this);
    private AllreduceTrainer(Builder b) {
        Djl.setup();
        this.model = b.model;
        this.optimizer = b.optimizer;
        this.bucketElements = (int) Math.max(1, b.bucketBytes / 4);
        this.compressor = b.compressor;
        this.timeout = b.timeout;
        this.hook = b.hook;
        this.progress = b.progress;
        this.checkpoints = b.checkpoints;
        this.driver = Driver.open(b.context, b.master, b.partitions, "d2l-ring-allreduce", model, b.initializer);
        this.sc = driver.context();
        this.partitions = driver.partitions();
        if (compressor != null && partitions < 2) {
            driver.close();
            throw new IllegalArgumentException("optCompression compresses what the ranks send each other, but with "
                    + partitions + " partition there is no other rank: use 2 or more partitions, or drop optCompression.");
        }
        this.maxAttempts = b.maxAttempts > 0 ? b.maxAttempts : sc.getConf().getInt("spark.stage.maxConsecutiveAttempts", 4);
        this.manager = driver.manager();
        this.net = driver.net();
    }

    /** Starts a builder for training the network that {@code model} builds. */
    public static Builder builder(ModelFactory model) {
        return new Builder(model);
    }

    /** The driver's copy of the network: the parameters after the last complete epoch. */
    public Block getNet() {
        return net;
    }

    /** The Spark context the stages run on. */
    public JavaSparkContext getContext() {
        return sc;
    }

    /** The number of partitions: tasks (replicas, ring ranks) per stage. */
    public int getPartitions() {
        return partitions;
    }

    /** How many times an epoch's stage is run before the trainer gives up. */
    public int getMaxAttempts() {
        return maxAttempts;
    }

    /** The metrics of every epoch this trainer has finished, across runs (resumed ones included). */
    public List<EpochMetrics> getHistory() {
        return List.copyOf(done.history());
    }

    /** Every epoch this trainer ran, as its stage saw it: attempts, bytes on the sockets, where the time went. */
    public List<AllreduceEpoch> getEpochLog() {
        return List.copyOf(log);
    }

    /**
     * The last epoch this trainer ran to the end; fails with what went wrong when none has (its fit failed,
     * or was never called), so that a cell after a failed one says so instead of failing on a null.
     */
    public AllreduceEpoch lastEpoch() {
        if (!log.isEmpty()) {
            return log.get(log.size() - 1);
        }
        throw new IllegalStateException("This trainer has finished no epoch: "
                + (lastFailure != null ? "its fit failed (" + lastFailure.getMessage() + "). Run that cell again."
                        : "call fit (or trainEpoch) first."), lastFailure);
    }

    /** Splits every global batch of {@code batches} (in order) over this trainer's partitions and caches the shards. */
    public SplitData distribute(List<Minibatch> batches) {
        return SplitData.of(sc, batches, partitions);
    }

    /** Splits every batch of {@code dataset}, in its order, over this trainer's partitions. */
    public SplitData distribute(RandomAccessDataset dataset) {
        return distribute(Minibatch.listOf(dataset, manager));
    }

    /** One epoch over {@code data} (a stage of its own), then accuracy on {@code testSet} (may be null). */
    public EpochMetrics trainEpoch(SplitData data, RandomAccessDataset testSet) {
        beginRun(1);
        try {
            return trainEpoch(data, testSet, RunListeners.of(progress));
        } finally {
            endRun();
        }
    }

    /** The epochs the next stage runs up to (0: until told to stop), as {@link #beginRun} planned them. */
    private void beginRun(int epochs) {
        endRun();
        lastPlanned = epochs == 0 ? 0 : done.epochs() + epochs;
    }

    /** Stops the running stage, if any, after its current step, and waits for it to end. */
    private void endRun() {
        if (stage != null) {
            stage.stopAndWait();
            stage = null;
        }
    }

    private EpochMetrics trainEpoch(SplitData data, RandomAccessDataset testSet, EpochListener events) {
        if (data.partitions() != partitions) {
            throw new IllegalArgumentException("The data is split over " + data.partitions()
                    + " partitions but this trainer uses " + partitions + ": distribute it with this trainer.");
        }
        int epoch = done.epochs() + 1;
        if (lastPlanned != 0 && epoch > lastPlanned) {
            lastPlanned = epoch; // a trainEpoch beyond the plan (outside a fit): one more epoch
            endRun();
        }
        events.onEpochStart(epoch, data.examples());
        long t0 = System.nanoTime();
        List<String> failures = new ArrayList<>();
        List<RankResult> results = null;
        double stageSeconds = 0;
        while (results == null) {
            if (stage == null) {
                stage = startStage(data, epoch, failures.size());
            }
            try {
                results = stage.awaitEpoch(epoch);
                stageSeconds = stage.secondsOfLastEpoch();
            } catch (InterruptedException ex) { // the ranks stop after their step, and the fit ends here
                stage = null;
                throw new TrainingInterruptedException(epoch, done.count(), done.history(), "The driver's model holds the "
                        + "parameters of the last complete epoch; run the cell again to go on.");
            } catch (AllreduceStage.FailedException ex) {
                stage.stopAndWait();
                stage = null;
                failures.add("attempt " + (failures.size() + 1) + ": " + ex.getMessage());
                if (failures.size() >= maxAttempts) {
                    lastFailure = new EpochFailedException("Epoch " + epoch + " failed on all " + maxAttempts
                            + " attempts of its barrier stage; the last: " + ex.getMessage() + ". The driver's model "
                            + (epoch == 1 ? "keeps its initial parameters" : "is at the end of epoch " + (epoch - 1)
                            + ", its last complete epoch") + ".", epoch, failures.size(), ex.getCause());
                    throw lastFailure;
                }
                System.err.printf("Epoch %d: the barrier stage failed on attempt %d of %d (%s); running it again "
                        + "from the driver's %s, with the data shipped again.%n", epoch, failures.size(), maxAttempts,
                        ex.getMessage(), epoch == 1 ? "initial parameters" : "parameters at the end of epoch " + (epoch - 1));
                data.reship(); // a lost executor took its cached shard with it
            }
        }
        results.sort(Comparator.comparingInt(RankResult::rank));
        for (RankResult r : results) {
            if (r.parameterHash() != results.get(0).parameterHash()) {
                endRun();
                throw new IllegalStateException("Epoch " + epoch + ": rank " + r.rank() + "'s parameters differ from "
                        + "rank 0's after the epoch; the replicas diverged (the ranks must run the same optimizer).");
            }
        }
        RankResult first = results.get(0);
        first.parameters().loadInto(net);
        done.optimizerState(first.optimizerState());
        for (RankResult r : results) {
            done.compression(done.compression().with(r.compression())); // each rank's own residuals, the shared Q
        }
        done.count(data.steps());
        done.epochTrained();
        log.add(new AllreduceEpoch(epoch, failures.size() + 1, failures, results, stageSeconds, first.gradientElements()));
        double lossSum = results.stream().mapToDouble(RankResult::lossSum).sum();
        double correct = results.stream().mapToDouble(RankResult::correct).sum();
        long examples = results.stream().mapToLong(RankResult::examples).sum();
        long bytes = results.stream().mapToLong(RankResult::bytesSent).sum();
        events.onStep(epoch, examples, lossSum / examples);
        double testAcc = testSet == null ? Double.NaN
                : Accuracy.evaluateAccuracy(net, Batches.of(testSet, manager, "test"), Device.cpu());
        double seconds = Math.max(stageSeconds, (System.nanoTime() - t0) / 1e9);
        EpochMetrics m = new EpochMetrics(epoch, lossSum / examples, correct / examples, testAcc, seconds,
                examples / seconds, data.steps(), bytes, 0, Double.NaN, data.steps(), List.of(), Double.NaN);
        done.finished(m);
        return m;
    }

    /** Starts the barrier stage of this fit's epochs from {@code firstEpoch}, its {@code attempt}-th try (from 0). */
    private AllreduceStage startStage(SplitData data, int firstEpoch, int attempt) {
        ParameterValues start = ParameterValues.of(net);
        ParameterValues state = done.optimizerState();
        CompressionValues compression = compressor == null ? null : done.compression();
        return new AllreduceStage(sc, group, partitions, timeout, firstEpoch, address -> {
            AllreduceTask.FitPlan plan = new AllreduceTask.FitPlan(firstEpoch, lastPlanned, attempt, done.count(),
                    data.globalExamples(), bucketElements, compressor, timeout.toMillis(), hook, address);
            return () -> runStage(data, start, state, compression, plan);
        });
    }

    /**
     * Runs one fit's barrier stage from {@code start}, {@code state} and {@code compression} (null: no
     * compressor) until its ranks end.
     */
    private void runStage(SplitData data, ParameterValues start, ParameterValues state, CompressionValues compression,
            AllreduceTask.FitPlan plan) {
        Broadcast<ParameterValues> bc = sc.broadcast(start);
        Broadcast<ParameterValues> bcState = state == null ? null : sc.broadcast(state);
        Broadcast<CompressionValues> bcCompression = compression == null ? null : sc.broadcast(compression);
        sc.setJobGroup(group, "d2l ring allreduce fit", true);
        try {
            ClassTag<RankResult> tag = ClassTag$.MODULE$.apply(RankResult.class);
            RDD<RankResult> out = data.shards().rdd().rdd().barrier()
                    .mapPartitions(new AllreduceTask(bc, bcState, bcCompression, model, optimizer, plan), false, tag);
            JavaRDD.fromRDD(out, tag).collect();
        } finally {
            sc.clearJobGroup();
            bc.destroy();
            if (bcState != null) {
                bcState.destroy();
            }
            if (bcCompression != null) {
                bcCompression.destroy();
            }
        }
    }

    /** Trains {@code numEpochs} epochs over {@code data}, evaluating on {@code testSet} (may be null) after each. */
    public List<EpochMetrics> fit(SplitData data, RandomAccessDataset testSet, int numEpochs, EpochListener... listeners) {
        return TrainingLoop.fit(epochs(data, testSet), numEpochs, listeners);
    }

    /** This trainer bound to {@code data} and {@code testSet} (may be null), for {@link TrainingLoop} and early stopping. */
    public EpochTrainer epochs(SplitData data, RandomAccessDataset testSet) {
        return new DriverEpochs(events -> trainEpoch(data, testSet, events), net, manager, testSet != null, progress)
                .withRun(this::beginRun, this::endRun)
                .withCheckpoints(this::getHistory, checkpoints,
                        () -> new DriverState(net, optimizer, rule(), compressor != null, done, "steps", data.examples(),
                                testSet == null ? 0 : testSet.size()));
    }

    /** The settings a resumed run must share: partitions, the rule and the compressor (when there is one). */
    private Map<String, String> rule() {
        Map<String, String> rule = new LinkedHashMap<>();
        rule.put("partitions", String.valueOf(partitions));
        rule.put("rule", "ring allreduce of gradients");
        if (compressor != null) {
            rule.put("compression", compressor.describe());
        }
        return rule;
    }

    /** Frees the driver's network and, if this trainer started the Spark context, stops it. */
    @Override
    public void close() {
        endRun();
        driver.close();
    }

    /** Configures an {@link AllreduceTrainer}. */
    public static final class Builder extends SparkTrainerBuilder<Builder> {
        private long bucketBytes = 25L << 20;
        private Duration timeout = Duration.ofSeconds(60);
        private int maxAttempts;
        private StepHook hook = StepHook.none();
        private Compressor compressor;

        private Builder(ModelFactory model) {
            super(model, "AllreduceTrainer");
        }

        /** The bytes of gradients ring-allreduced at a time (default 25 MiB, as PyTorch DDP's buckets). */
        public Builder optBucketBytes(long bytes) {
            if (bytes < 4 || bytes / 4 > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("A bucket holds 4 bytes (one float) to 8 GiB, got " + bytes + ".");
            }
            this.bucketBytes = bytes;
            return this;
        }

        /** How long a task waits for a peer to connect or to send its part of a step before failing the stage (default 60 s). */
        public Builder optTimeout(Duration timeout) {
            if (timeout == null || timeout.toMillis() < 1 || timeout.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("The timeout must be between 1 ms and 24 days, got " + timeout + ".");
            }
            this.timeout = timeout;
            return this;
        }

        /** How many times an epoch's stage runs before the trainer gives up (default: spark.stage.maxConsecutiveAttempts, 4). */
        public Builder optMaxAttempts(int attempts) {
            if (attempts < 1) {
                throw new IllegalArgumentException("An epoch needs at least one attempt, got " + attempts + ".");
            }
            this.maxAttempts = attempts;
            return this;
        }

        /**
         * Compresses each gradient the ranks send each other every step with {@code compressor} (for example
         * {@code Compressor.oneBit(true)}), its state kept per rank, reported to the driver after each epoch
         * and checkpointed; running statistics are averaged uncompressed. Default: none (float32 ring allreduce).
         */
        public Builder optCompression(Compressor compressor) {
            this.compressor = compressor;
            return this;
        }

        /** Called on the executors before every step (for injecting a failure); default: nothing. */
        public Builder optStepHook(StepHook hook) {
            this.hook = hook == null ? StepHook.none() : hook;
            return this;
        }

        /** Starts Spark (unless given a context) and initialises the driver's network. */
        public AllreduceTrainer build() {
            validate();
            return new AllreduceTrainer(this);
        }
    }
}
