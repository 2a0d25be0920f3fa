package org.d2l.multigpu.spark.task;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.util.Pair;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.eval.Accuracy;
import org.d2l.multigpu.optimizer.OptimizerState;
import org.d2l.multigpu.parallel.ParameterAveraging;
import org.d2l.multigpu.runtime.NoGrad;
import org.d2l.multigpu.spark.Minibatch;
import org.d2l.multigpu.spark.ModelFactory;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ParameterValues;
import org.d2l.multigpu.spark.PartialSum;
import org.d2l.multigpu.spark.PartitionFailedException;
import org.d2l.multigpu.spark.Shard;
import org.d2l.multigpu.step.NonFiniteLoss;
import org.d2l.multigpu.step.ShardPass;

/**
 * The task that every partition runs in one round, on an executor: load the broadcast parameters
 * (and optimizer state) into a replica, take {@code frequency} local SGD steps on the partition's next minibatches, and
 * return the replica's parameters (nothing when the partition has no minibatch left this epoch).
 */
public final class PartitionTrainer implements FlatMapFunction<Iterator<Shard>, PartialSum> {

    private static final long serialVersionUID = 1L;

    private final Broadcast<ParameterValues> params;
    private final Broadcast<ParameterValues> optimizerState;
    private final ModelFactory model;
    private final OptimizerFactory optimizer;
    private final int round;
    private final int epoch;
    private final int firstStep;
    private final int frequency;
    private final int partitions;

    /**
     * The task of round {@code round} in epoch {@code epoch} (counted from 0; optimizer state null
     * when there is none yet), whose local steps are the partition's minibatches {@code firstStep}
     * to {@code firstStep + frequency - 1}, of {@code partitions} in all.
     */
    public PartitionTrainer(Broadcast<ParameterValues> params, Broadcast<ParameterValues> optimizerState,
            ModelFactory model, OptimizerFactory optimizer, int round, int epoch, int firstStep, int frequency,
            int partitions) {
        this.params = params;
        this.optimizerState = optimizerState;
        this.model = model;
        this.optimizer = optimizer;
        this.round = round;
        this.epoch = epoch;
        this.firstStep = firstStep;
        this.frequency = frequency;
        this.partitions = partitions;
    }

    @Override
    public Iterator<PartialSum> call(Iterator<Shard> shards) {
        List<PartialSum> out = new ArrayList<>();
        TaskContext task = TaskContext.get();
        int cpus = task == null ? 1 : task.cpus();
        ExecutorRuntime.start(cpus);
        ExecutorRuntime.capThreads(cpus);
        try {
            while (shards.hasNext()) {
                Shard shard = shards.next();
                int end = Math.min(firstStep + frequency, shard.batches().size());
                if (end <= firstStep) {
                    continue; // this partition's data for the epoch is used up
                }
                try {
                    out.add(train(shard, end));
                } catch (PartitionFailedException ex) {
                    throw ex;
                } catch (RuntimeException ex) {
                    throw new PartitionFailedException(shard.partition(), round, ex.toString(), ex);
                }
            }
        } finally {
            ExecutorRuntime.restoreThreads();
        }
        return out.iterator();
    }

    /** The rule every worker follows: its own minibatch's mean loss, weight 1. */
    private static final ParameterAveraging RULE = ParameterAveraging.every(1);

    private PartialSum train(Shard shard, int end) {
        Block net = ExecutorRuntime.borrow(model);
        try (NoGrad g = NoGrad.scope()) { // loading and updating parameters must not be recorded
            zeroGradients(net);
            params.value().loadInto(net);
            Optimizer opt = optimizer.newOptimizer();
            // carry on counting from the local steps this partition took in earlier rounds
            OptimizerState.startCountingAt(opt, epoch * shard.batches().size() + firstStep);
            OptimizerState state = OptimizerState.of(opt);
            ParameterValues startState = optimizerState == null ? null : optimizerState.value();
            if (startState != null) {
                loadState(startState, state, net);
            }
            Loss loss = Loss.softmaxCrossEntropyLoss();
            double lossSum = 0;
            double correct = 0;
            long examples = 0;
            long t0 = System.nanoTime(); // the local steps only: loading and returning values is overhead
            for (int s = firstStep; s < end; s++) {
                Minibatch b = shard.batches().get(s);
                NDManager root = net.getParameters().valueAt(0).getArray().getManager();
                try (NDManager step = root.newSubManager()) {
                    NDArray x = b.x(step);
                    NDArray y = b.y(step);
                    // PyTorch's grad mode is per thread: ShardPass records on this task's thread only, as local[k]
                    // runs k tasks in one JVM, where DJL's GradientCollector allows one per process
                    ShardPass.Result r = ShardPass.forward(net, new ParameterStore(step, false), loss, x, y,
                            RULE.lossWeight(b.size(), b.size(), 1), yHat -> yHat);
                    float l = r.lossValue();
                    if (!Float.isFinite(l)) {
                        throw new PartitionFailedException(shard.partition(), round, NonFiniteLoss.message(l,
                                String.format(Locale.ROOT, "its local step %d (minibatch %d of the partition)",
                                        s - firstStep + 1, s), "round", NonFiniteLoss.Facts.of(List.of(x, y),
                                        parameterArrays(net), List.of(r.output()), Double.NaN,
                                        (long) epoch * shard.batches().size() + s)), null);
                    }
                    ShardPass.backward(r.weighted());
                    lossSum += (double) l * b.size();
                    NDArray yHat = r.output();
                    correct += Accuracy.accuracy(yHat, y);
                    update(net, opt);
                    examples += b.size();
                }
            }
            long trainNanos = System.nanoTime() - t0;
            ParameterValues trained = ParameterValues.of(net);
            ParameterValues trainedState = takeState(state, net);
            // what this partition received from the broadcast and sends back, in float32 elements
            long[] sent = new long[partitions];
            long[] received = new long[partitions];
            sent[shard.partition()] = trained.size() + (trainedState == null ? 0 : trainedState.size());
            received[shard.partition()] = params.value().size() + (startState == null ? 0 : startState.size());
            return new PartialSum(trained, trainedState, 1, end - firstStep, lossSum, correct, examples, trainNanos,
                    sent, received);
        } finally {
            ExecutorRuntime.release(model, net);
        }
    }

    /** One optimizer step on every trained parameter, then gradients back to zero. */
    private static void update(Block net, Optimizer opt) {
        for (Pair<String, Parameter> p : net.getParameters()) {
            Parameter param = p.getValue();
            if (param.requiresGradient()) {
                NDArray w = param.getArray();
                try (NDArray g = w.getGradient()) {
                    // Optimizer state (if any) is keyed by name, the same in every JVM.
                    opt.update(p.getKey(), w, g);
                    OnDevice.zero(g);
                }
            }
        }
    }

    /** The arrays of every parameter of {@code net}, for the message of a NaN loss. */
    static List<NDArray> parameterArrays(Block net) {
        List<NDArray> all = new ArrayList<>();
        net.getParameters().forEach(p -> all.add(p.getValue().getArray()));
        return all;
    }

    static void zeroGradients(Block net) {
        for (Pair<String, Parameter> p : net.getParameters()) {
            if (p.getValue().requiresGradient()) {
                try (NDArray g = p.getValue().getArray().getGradient()) {
                    OnDevice.zero(g);
                }
            }
        }
    }

    /** Writes {@code values} (named "kind/parameter") into the optimizer's state. */
    static void loadState(ParameterValues values, OptimizerState state, Block net) {
        NDManager root = net.getParameters().valueAt(0).getArray().getManager();
        Device device = net.getParameters().valueAt(0).getArray().getDevice();
        try (NDManager tmp = root.newSubManager()) {
            for (int i = 0; i < values.names().size(); i++) {
                String key = values.names().get(i);
                int slash = key.indexOf('/');
                int kind = Integer.parseInt(key.substring(0, slash));
                if (kind >= state.kinds()) {
                    throw new IllegalStateException("The optimizer state sent has kind " + kind + " but this "
                            + "optimizer keeps " + state.kinds() + " kind(s): driver and executors must use the same optimizer.");
                }
                state.set(kind, key.substring(slash + 1), device,
                        tmp.create(values.values().get(i), new Shape(values.shapes().get(i))));
            }
        }
    }

    /** The optimizer's state as "kind/parameter" values, freeing its arrays; null when it keeps none. */
    static ParameterValues takeState(OptimizerState state, Block net) {
        return stateValues(state, net, true);
    }

    /** The optimizer's state as "kind/parameter" values, its arrays kept for the steps to come; null when it keeps none. */
    static ParameterValues copyState(OptimizerState state, Block net) {
        return stateValues(state, net, false);
    }

    private static ParameterValues stateValues(OptimizerState state, Block net, boolean free) {
        List<String> names = new ArrayList<>();
        List<long[]> shapes = new ArrayList<>();
        List<float[]> values = new ArrayList<>();
        for (int kind = 0; kind < state.kinds(); kind++) {
            for (Pair<String, Parameter> p : net.getParameters()) {
                NDArray a = state.get(kind, p.getKey(), p.getValue().getArray().getDevice());
                if (a != null) {
                    names.add(kind + "/" + p.getKey());
                    shapes.add(a.getShape().getShape());
                    values.add(a.toFloatArray());
                    if (free) {
                        a.close(); // the optimizer is dropped after this task: free its native memory now
                    }
                }
            }
        }
        return names.isEmpty() ? null : new ParameterValues(List.copyOf(names), List.copyOf(shapes), List.copyOf(values));
    }
}
