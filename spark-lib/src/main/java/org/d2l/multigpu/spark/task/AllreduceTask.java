package org.d2l.multigpu.spark.task;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.util.Pair;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.broadcast.Broadcast;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.GradientBucket;
import org.d2l.multigpu.collective.GradientHook;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.compression.CompressionHook;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.eval.Accuracy;
import org.d2l.multigpu.optimizer.OptimizerState;
import org.d2l.multigpu.parallel.GradientAveraging;
import org.d2l.multigpu.runtime.NoGrad;
import org.d2l.multigpu.spark.CompressionValues;
import org.d2l.multigpu.spark.DriverLink;
import org.d2l.multigpu.spark.Minibatch;
import org.d2l.multigpu.spark.ModelFactory;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ParameterValues;
import org.d2l.multigpu.spark.RankResult;
import org.d2l.multigpu.spark.Shard;
import org.d2l.multigpu.spark.StepHook;
import org.d2l.multigpu.spark.ring.TcpRing;
import org.d2l.multigpu.spark.ring.TcpRingCollective;
import org.d2l.multigpu.step.NonFiniteLoss;
import org.d2l.multigpu.step.ShardPass;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * One barrier task of {@link org.d2l.multigpu.spark.driver.AllreduceTrainer AllreduceTrainer}'s fit: it loads the driver's parameters (and optimizer
 * state) into its replica, joins the TCP ring of the stage once, and for every step of every epoch of the
 * fit runs forward and backward on its shard of the global batch (its loss weighted by its share of the
 * batch), sums the gradients over the ring through a gradient hook over the collective seam ({@link
 * TcpRingCollective}: the plain hook, or {@link CompressionHook} with a compressor) and takes the same optimizer
 * update as every other task; after
 * each epoch it reports to the driver ({@link DriverLink}), and it stops after a step when the driver asks.
 */
public final class AllreduceTask extends AbstractFunction1<Iterator<Shard>, Iterator<RankResult>> implements Serializable {

    private static final long serialVersionUID = 1L;

    private final Broadcast<ParameterValues> params;
    private final Broadcast<ParameterValues> optimizerState;
    private final Broadcast<CompressionValues> compressionState;
    private final ModelFactory model;
    private final OptimizerFactory optimizer;
    private final FitPlan plan;

    /**
     * The task of {@code plan}'s epochs, starting from {@code params}, {@code optimizerState} (null: none yet)
     * and {@code compressionState} (null: no compressor).
     */
    public AllreduceTask(Broadcast<ParameterValues> params, Broadcast<ParameterValues> optimizerState,
            Broadcast<CompressionValues> compressionState, ModelFactory model, OptimizerFactory optimizer, FitPlan plan) {
        this.params = params;
        this.optimizerState = optimizerState;
        this.compressionState = compressionState;
        this.model = model;
        this.optimizer = optimizer;
        this.plan = plan;
    }

    @Override
    public Iterator<RankResult> apply(Iterator<Shard> shards) {
        BarrierTaskContext ctx = BarrierTaskContext.get();
        int rank = ctx.partitionId();
        int k = ctx.getTaskInfos().length;
        ExecutorRuntime.start(ctx.cpus());
        ExecutorRuntime.capThreads(ctx.cpus());
        Shard shard = shards.next();
        long t0 = System.nanoTime();
        TcpRing ring = null;
        current = plan.firstEpoch();
        try (DriverLink.Client link = new DriverLink.Client(plan.driver(), rank)) {
            if (k > 1) {
                String host = SparkEnv.get().blockManager().blockManagerId().host();
                ring = TcpRing.join(rank, k, host, ctx::allGather, Duration.ofMillis(plan.timeoutMillis()));
            }
            train(shard, rank, k, ring, link, System.nanoTime() - t0);
            return CollectionConverters.asScala(List.<RankResult>of().iterator());
        } catch (IOException | IllegalStateException ex) {
            throw new IllegalStateException("Epoch " + current + ", rank " + rank + " failed: " + ex.getMessage(), ex);
        } catch (RuntimeException ex) {
            throw new IllegalStateException("Epoch " + current + ", rank " + rank + " failed: " + ex, ex);
        } finally {
            if (ring != null) {
                ring.close();
            }
            ExecutorRuntime.restoreThreads();
        }
    }

    /**
     * Trains the plan's epochs on this rank's shard, sending each finished epoch's figures (rank 0: also the
     * parameters and optimizer state) to the driver, until the last epoch or until rank 0 hears the driver
     * ask to stop, which every rank learns through a one-float allreduce after each step.
     */
    private void train(Shard shard, int rank, int k, TcpRing ring, DriverLink.Client link, long joinNanos)
            throws IOException {
        Block net = ExecutorRuntime.borrow(model);
        OptimizerState state = null;
        try (NoGrad g = NoGrad.scope()) { // loading and updating parameters must not be recorded
            PartitionTrainer.zeroGradients(net);
            params.value().loadInto(net);
            Optimizer opt = optimizer.newOptimizer();
            OptimizerState.startCountingAt(opt, plan.stepsBefore()); // global steps taken in earlier epochs
            state = OptimizerState.of(opt);
            if (optimizerState != null) {
                PartitionTrainer.loadState(optimizerState.value(), state, net);
            }
            List<Pair<String, Parameter>> all = net.getParameters().stream().toList();
            long elements = all.stream().mapToLong(p -> p.getValue().getArray().size()).sum();
            float[] buffer = new float[Math.toIntExact(elements)];
            float[] control = new float[1];
            Collective collective = ring == null ? null : new TcpRingCollective(ring, plan.bucketElements());
            CompressionHook compression = collective == null || plan.compressor() == null ? null
                    : CompressionHook.of(plan.compressor(), collective);
            // where the gradients leave this rank: compressed, or summed as they are in one bucket
            GradientHook hook = collective == null ? null : compression != null ? compression
                    : GradientHook.allreduce(collective);
            CompressionValues reported = CompressionValues.empty();
            if (compression != null) {
                compressionState.value().forReplica(rank).loadInto(compression.state()); // its residuals, the shared Q
                reported = CompressionValues.of(compression.state());
            }
            Loss loss = Loss.softmaxCrossEntropyLoss();
            NDManager root = all.get(0).getValue().getArray().getManager();
            int steps = shard.batches().size();
            int stepsBefore = plan.stepsBefore();
            for (current = plan.firstEpoch(); plan.lastEpoch() == 0 || current <= plan.lastEpoch(); current++) {
                double lossSum = 0;
                double correct = 0;
                long examples = 0;
                long compute = 0;
                long allreduce = 0;
                long update = 0;
                long sent = 0;
                long received = 0;
                for (int s = 0; s < steps; s++) {
                    plan.hook().beforeStep(rank, current, s, current == plan.firstEpoch() ? plan.attempt() : 0);
                    Minibatch b = shard.batches().get(s);
                    long n = plan.globalExamples()[s];
                    int active = (int) Math.min(k, n);
                    try (NDManager step = root.newSubManager()) {
                        long t0 = System.nanoTime();
                        if (b.size() > 0) {
                            float[] lossAndCorrect = forwardBackward(net, loss, b, n, step, rank, s, stepsBefore + s);
                            lossSum += lossAndCorrect[0];
                            correct += lossAndCorrect[1];
                            examples += b.size();
                        }
                        long t1 = System.nanoTime();
                        flatten(all, buffer, b.size() > 0);
                        if (hook != null) {
                            Traffic t = allreduce(hook, all, buffer, rank, k, step);
                            sent += t.sentBytes()[rank];
                            received += t.receivedBytes()[rank];
                        }
                        long t2 = System.nanoTime();
                        applyUpdate(all, buffer, opt, active, step);
                        long t3 = System.nanoTime();
                        compute += t1 - t0;
                        allreduce += t2 - t1;
                        update += t3 - t2;
                    }
                    // Whether the driver asked to stop: rank 0 hears it, the ring tells every rank (not counted: control).
                    control[0] = rank == 0 && link.stopRequested() ? 1 : 0;
                    if (ring != null) {
                        ring.allreduce(control, 1);
                    }
                    if (control[0] > 0) {
                        return; // the driver keeps the last epoch reported in full
                    }
                }
                stepsBefore += steps;
                ParameterValues trained = ParameterValues.of(net);
                boolean first = current == plan.firstEpoch();
                CompressionValues changed = CompressionValues.empty();
                if (compression != null) {
                    CompressionValues now = CompressionValues.of(compression.state());
                    changed = now.changedSince(reported);
                    reported = now;
                }
                int buckets = (int) ((elements + plan.bucketElements() - 1) / plan.bucketElements());
                link.send(new RankResult(rank, rank == 0 ? trained : null,
                        rank == 0 ? PartitionTrainer.copyState(state, net) : null, hash(trained), lossSum, correct,
                        examples, steps, elements, compression == null ? buckets : 0, sent, received,
                        first && ring != null ? ring.handshakeBytes() : 0,
                        first && ring != null ? ring.refusedConnections() : 0, first ? joinNanos : 0, compute,
                        allreduce, update, changed));
            }
        } finally {
            if (state != null) {
                PartitionTrainer.takeState(state, net); // frees the optimizer's arrays
            }
            ExecutorRuntime.release(model, net);
        }
    }

    /**
     * Sums {@code buffer} (every parameter's gradient or running statistic, in the network's order) over the ranks
     * in place through {@code hook}: one bucket whose entries are this rank's slices of it, the gradients named by
     * their parameters (a compressor's state is kept per name, the same in every JVM); returns the traffic.
     */
    static Traffic allreduce(GradientHook hook, List<Pair<String, Parameter>> all, float[] buffer, int rank, int k,
            NDManager step) {
        GradientBucket bucket = new GradientBucket();
        List<NDArray> mine = new ArrayList<>(all.size());
        int at = 0;
        for (Pair<String, Parameter> p : all) {
            NDArray w = p.getValue().getArray();
            int size = (int) w.size();
            NDArray a = step.create(Arrays.copyOfRange(buffer, at, at + size), w.getShape());
            List<NDArray> slots = new ArrayList<>(Collections.nCopies(k, (NDArray) null));
            slots.set(rank, a);
            if (p.getValue().requiresGradient()) {
                bucket.addGradient(p.getKey(), slots);
            } else {
                bucket.addExact(p.getKey(), slots); // running statistics are averaged exactly, never compressed
            }
            mine.add(a);
            at += size;
        }
        Traffic t = hook.allreduce(bucket);
        at = 0;
        for (NDArray a : mine) {
            float[] sum = a.toFloatArray();
            System.arraycopy(sum, 0, buffer, at, sum.length);
            at += sum.length;
        }
        return t;
    }

    /** The epoch this task is training, for its messages. */
    private transient int current;

    /** The rule every rank follows: the gradient is the mean over the global batch, each shard weighted by its share. */
    private static final GradientAveraging RULE = GradientAveraging.mean();

    /**
     * Forward and backward on this rank's shard {@code b} of a global batch of {@code n} examples, the loss
     * weighted by the rule as in the in-process trainer ({@link ShardPass}); returns (loss x examples, correct).
     */
    public static float[] forwardBackward(Block net, Loss loss, Minibatch b, long n, NDManager step, int rank,
            int s, long updatesBefore) {
        NDArray x = b.x(step);
        NDArray y = b.y(step);
        long ni = b.size();
        // PyTorch's grad mode is per thread: ShardPass records on this task's thread only, as local[k] runs k
        // tasks in one JVM, where DJL's GradientCollector allows one per process
        ShardPass.Result r = ShardPass.forward(net, new ParameterStore(step, false), loss, x, y,
                RULE.lossWeight(ni, n, 1), yHat -> yHat);
        float value = r.lossValue();
        if (!Float.isFinite(value)) {
            throw NonFiniteLoss.error(value, String.format(Locale.ROOT, "step %d (rank %d's shard of global batch %d)",
                    s + 1, rank, s), "epoch", NonFiniteLoss.Facts.of(List.of(x, y), PartitionTrainer.parameterArrays(net),
                    List.of(r.output()), Double.NaN, updatesBefore));
        }
        ShardPass.backward(r.weighted());
        return new float[] {value * ni, Accuracy.accuracy(r.output(), y)};
    }

    /**
     * Copies every trained parameter's gradient, then every running statistic (zero when this rank
     * had no examples this step), into {@code buffer}, in the network's parameter order.
     */
    public static void flatten(List<Pair<String, Parameter>> all, float[] buffer, boolean active) {
        int at = 0;
        for (Pair<String, Parameter> p : all) {
            NDArray w = p.getValue().getArray();
            int size = (int) w.size();
            if (p.getValue().requiresGradient()) {
                try (NDArray g = w.getGradient()) {
                    System.arraycopy(g.toFloatArray(), 0, buffer, at, size);
                }
            } else if (active) {
                System.arraycopy(w.toFloatArray(), 0, buffer, at, size);
            } else {
                Arrays.fill(buffer, at, at + size, 0f);
            }
            at += size;
        }
    }

    /**
     * One optimizer update of every trained parameter with its summed gradient from {@code buffer}
     * (gradients then back to zero), running statistics set to their sum over the {@code active} ranks
     * divided by {@code active}.
     */
    public static void applyUpdate(List<Pair<String, Parameter>> all, float[] buffer, Optimizer opt, int active,
            NDManager step) {
        int at = 0;
        for (Pair<String, Parameter> p : all) {
            NDArray w = p.getValue().getArray();
            int size = (int) w.size();
            NDArray sum = step.create(Arrays.copyOfRange(buffer, at, at + size), w.getShape());
            if (p.getValue().requiresGradient()) {
                opt.update(p.getKey(), w, sum); // optimizer state (if any) is keyed by name, the same in every JVM
                try (NDArray g = w.getGradient()) {
                    OnDevice.zero(g);
                }
            } else {
                OnDevice.copyInto(sum.divi(active), w);
            }
            at += size;
        }
    }

    /** A hash of every parameter's bits: equal on every rank when the replicas are identical. */
    private static long hash(ParameterValues values) {
        long h = 1;
        for (float[] v : values.values()) {
            h = 31 * h + Arrays.hashCode(v);
        }
        return h;
    }

    /**
     * What every task of a fit's stage needs to know besides its shard: its first epoch (from 1) and last
     * (0: until the driver says stop), the attempt of the first epoch, the global steps before it, the
     * examples of each global batch, the bucket size, the compressor of the gradients (null: none), the
     * timeout of every connect and read, the hook called before each step, and where the driver listens
     * for the epochs' reports.
     */
    public record FitPlan(int firstEpoch, int lastEpoch, int attempt, int stepsBefore, long[] globalExamples,
            int bucketElements, Compressor compressor, long timeoutMillis, StepHook hook, DriverLink.Address driver)
            implements Serializable {
    }
}
