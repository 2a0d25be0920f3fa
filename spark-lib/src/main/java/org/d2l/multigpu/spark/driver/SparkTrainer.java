package org.d2l.multigpu.spark.driver;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.training.dataset.RandomAccessDataset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.d2l.multigpu.checkpoint.CheckpointPolicy;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.data.Batches;
import org.d2l.multigpu.eval.Accuracy;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.loop.EpochTrainer;
import org.d2l.multigpu.loop.RunListeners;
import org.d2l.multigpu.loop.TrainingLoop;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.spark.Minibatch;
import org.d2l.multigpu.spark.ModelFactory;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ParameterValues;
import org.d2l.multigpu.spark.PartialSum;
import org.d2l.multigpu.spark.RoundFailedException;
import org.d2l.multigpu.spark.RoundResult;
import org.d2l.multigpu.spark.ShardedData;
import org.d2l.multigpu.spark.task.PartitionTrainer;

/**
 * Data-parallel training on Apache Spark by parameter averaging (the pattern of DL4J's
 * {@code ParameterAveragingTrainingMaster}; Spark MLlib's optimizers instead aggregate gradients and
 * update once per job on the driver): each round the driver broadcasts the parameters (and the
 * averaged optimizer state, as DL4J's {@code averageUpdaters}), every
 * partition loads them into its own replica and takes {@code averagingFrequency} local SGD steps on
 * its own minibatches, {@code treeAggregate} sums the replicas, and the driver averages them
 * (over the partitions that trained in the round).
 * Embedded {@code local[k]} by default; given a master URL ({@code spark://}, {@code yarn},
 * {@code k8s://}) or the context of {@code spark-submit}, the same code runs on a cluster.
 */
public final class SparkTrainer implements AutoCloseable {

    private static final Pattern PARTITION = Pattern.compile("Partition (\\d+) failed in round \\d+: [^\\n]*");

    private final ModelFactory model;
    private final OptimizerFactory optimizer;
    private final int partitions;
    private final int frequency;
    private final JavaSparkContext sc;
    private final Driver driver;
    private final NDManager manager;
    private final Block net;
    private final boolean progress;
    private final CheckpointPolicy checkpoints;
    private final DriverProgress done = new DriverProgress(); // optimizer state, epochs, history; count: rounds run
    private final List<RoundResult> roundLog = new ArrayList<>();

    private SparkTrainer(Builder b) {
        Djl.setup();
        this.model = b.model;
        this.optimizer = b.optimizer;
        this.frequency = b.frequency;
        this.progress = b.progress;
        this.checkpoints = b.checkpoints;
        this.driver = Driver.open(b.context, b.master, b.partitions, "d2l-parameter-averaging", model, b.initializer);
        this.sc = driver.context();
        this.partitions = driver.partitions();
        this.manager = driver.manager();
        this.net = driver.net();
    }

    /** Starts a builder for training the network that {@code model} builds. */
    public static Builder builder(ModelFactory model) {
        return new Builder(model);
    }

    /** The driver's copy of the network: after each round it holds the averaged parameters. */
    public Block getNet() {
        return net;
    }

    /** The Spark context the rounds run on. */
    public JavaSparkContext getContext() {
        return sc;
    }

    /** The number of partitions (replicas) per round. */
    public int getPartitions() {
        return partitions;
    }

    /** The number of local steps each partition takes between two averagings. */
    public int getAveragingFrequency() {
        return frequency;
    }

    /** Every round run so far, with its timings. */
    public List<RoundResult> getRounds() {
        return List.copyOf(roundLog);
    }

    /** The metrics of every epoch this trainer has finished, across runs. */
    public List<EpochMetrics> getHistory() {
        return List.copyOf(done.history());
    }

    /** Deals {@code batches} round robin over this trainer's partitions and caches them on the executors. */
    public ShardedData distribute(List<Minibatch> batches) {
        return ShardedData.of(sc, batches, partitions);
    }

    /** Deals every batch of {@code dataset}, in its order, over this trainer's partitions. */
    public ShardedData distribute(RandomAccessDataset dataset) {
        return distribute(Minibatch.listOf(dataset, manager));
    }

    /**
     * One round: every partition takes up to {@code averagingFrequency} local steps from its
     * minibatch {@code firstStep} on, then the replicas that trained are averaged into the driver's
     * network. On failure the network is left as it was and a {@link RoundFailedException} names
     * the partition.
     */
    public RoundResult trainRound(ShardedData data, int firstStep) {
        if (data.partitions() != partitions) {
            throw new IllegalArgumentException("The data is spread over " + data.partitions()
                    + " partitions but this trainer uses " + partitions + ": distribute it with this trainer.");
        }
        int round = done.count(1);
        long t0 = System.nanoTime();
        ParameterValues current = ParameterValues.of(net);
        Broadcast<ParameterValues> bc = sc.broadcast(current);
        Broadcast<ParameterValues> bcState = done.optimizerState() == null ? null : sc.broadcast(done.optimizerState());
        PartialSum total;
        try {
            total = data.rdd()
                    .mapPartitions(new PartitionTrainer(bc, bcState, model, optimizer, round, done.epochs(), firstStep, frequency,
                            partitions))
                    .treeAggregate(PartialSum.ZERO, PartialSum::plus, PartialSum::plus, 2);
        } catch (Exception ex) {
            throw failure(round, ex);
        } finally {
            bc.destroy();
            if (bcState != null) {
                bcState.destroy();
            }
        }
        if (total.replicas() > 0) {
            total.sum().dividedBy(total.replicas()).loadInto(net);
            if (total.stateSum() != null) {
                done.optimizerState(total.stateSum().dividedBy(total.replicas()));
            }
        }
        Traffic traffic = total.traffic(partitions);
        RoundResult r = new RoundResult(round, total.replicas(), total.steps(), total.lossSum(), total.correct(),
                total.examples(), traffic.totalSentBytes(), (System.nanoTime() - t0) / 1e9, total.maxTrainNanos() / 1e9,
                traffic);
        roundLog.add(r);
        return r;
    }

    /**
     * One epoch over {@code data}: rounds of {@code averagingFrequency} local steps until every
     * partition has used its minibatches, then accuracy on {@code testSet} (may be null).
     */
    public EpochMetrics trainEpoch(ShardedData data, RandomAccessDataset testSet) {
        return trainEpoch(data, testSet, RunListeners.of(progress));
    }

    EpochMetrics trainEpoch(ShardedData data, RandomAccessDataset testSet, EpochListener events) {
        double lossSum = 0;
        double correct = 0;
        long examples = 0;
        long syncs = 0;
        long bytes = 0;
        long t0 = System.nanoTime();
        int steps = data.stepsPerEpoch();
        events.onEpochStart(done.epochs() + 1, data.examples());
        for (int first = 0; first < steps; first += frequency) {
            RoundResult r = trainRound(data, first);
            lossSum += r.lossSum();
            correct += r.correct();
            examples += r.examples();
            syncs++;
            bytes += r.bytes();
            events.onStep(done.epochs() + 1, examples, lossSum / examples);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        done.epochTrained();
        double testAcc = testSet == null ? Double.NaN
                : Accuracy.evaluateAccuracy(net, Batches.of(testSet, manager, "test"), Device.cpu());
        // steps: local steps per partition, as ParameterAveraging's rounds in process
        EpochMetrics m = new EpochMetrics(done.epochs(), lossSum / examples, correct / examples, testAcc, seconds,
                examples / seconds, syncs, bytes, 0, Double.NaN, steps, List.of(), Double.NaN);
        done.finished(m);
        return m;
    }

    /** Trains {@code numEpochs} epochs over {@code data}, evaluating on {@code testSet} (may be null) after each. */
    public List<EpochMetrics> fit(ShardedData data, RandomAccessDataset testSet, int numEpochs,
            EpochListener... listeners) {
        return TrainingLoop.fit(epochs(data, testSet), numEpochs, listeners);
    }

    /**
     * This trainer bound to {@code data} and {@code testSet} (may be null), for {@link TrainingLoop} and
     * early stopping ({@code new EarlyStoppingParallelTrainer(config, spark.epochs(data, testSet))}): its
     * model is the driver's copy, evaluated on the driver's CPU.
     */
    public EpochTrainer epochs(ShardedData data, RandomAccessDataset testSet) {
        return new DriverEpochs(events -> trainEpoch(data, testSet, events), net, manager, testSet != null, progress)
                .withCheckpoints(this::getHistory, checkpoints,
                        () -> new DriverState(net, optimizer, Map.of("partitions", String.valueOf(partitions),
                                "averaging frequency", String.valueOf(frequency)), false, done, "rounds", data.examples(),
                                testSet == null ? 0 : testSet.size()));
    }

    /** The error to throw for a failed round: names the partition when a task said which. */
    private static RoundFailedException failure(int round, Exception ex) {
        String reason = null;
        int partition = -1;
        for (Throwable t = ex; t != null && reason == null; t = t.getCause()) {
            Matcher m = PARTITION.matcher(String.valueOf(t.getMessage()));
            if (m.find()) {
                reason = m.group();
                partition = Integer.parseInt(m.group(1));
            }
        }
        if (reason == null) {
            reason = "a task failed: " + ex.getMessage();
        }
        reason = reason.endsWith(".") ? reason : reason + ".";
        return new RoundFailedException("Round " + round + " failed. " + reason
                + " The driver's model was left as it was before this round.", partition, ex);
    }

    /** Frees the driver's network and, if this trainer started the Spark context, stops it. */
    @Override
    public void close() {
        driver.close();
    }

    /** Configures a {@link SparkTrainer}. */
    public static final class Builder extends SparkTrainerBuilder<Builder> {
        private int frequency = 1;

        private Builder(ModelFactory model) {
            super(model, "SparkTrainer");
        }

        /** The number of local steps per partition between two averagings (default 1). */
        public Builder optAveragingFrequency(int frequency) {
            if (frequency < 1) {
                throw new IllegalArgumentException("The averaging frequency must be at least 1, got " + frequency + ".");
            }
            this.frequency = frequency;
            return this;
        }

        /** Starts Spark (unless given a context) and initialises the driver's network. */
        public SparkTrainer build() {
            validate();
            return new SparkTrainer(this);
        }
    }
}
