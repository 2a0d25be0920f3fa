package org.d2l.multigpu.models;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.Block;
import ai.djl.nn.BlockList;
import ai.djl.nn.Parameter;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;
import java.util.List;
import org.d2l.multigpu.collective.BatchNormGroup;
import org.d2l.multigpu.runtime.DjlFields;
import org.d2l.multigpu.runtime.NoGrad;
import org.d2l.multigpu.runtime.Scalars;

/**
 * DJL's {@link BatchNorm} whose training statistics are those of the global batch across the replicas
 * of a {@code DataParallelTrainer} built with {@code optSyncBatchNorm(true)}, as PyTorch's
 * {@code SyncBatchNorm}: each replica computes the mean and variance of its shard, the replicas exchange
 * them ({@link BatchNormGroup}), and every replica normalises with the combined mean and variance and
 * updates its running statistics with them. The statistics are built from differentiable array
 * operations on the other replicas' arrays (DJL has no custom autograd functions), so that one backward
 * pass of the replicas' summed losses carries each replica's gradient through the others' statistics,
 * as PyTorch's backward allreduce does. It keeps the {@link BatchNorm}'s own parameters (same names and
 * ids) and computes exactly what it computes anywhere else: in evaluation, or outside such a trainer.
 */
public final class SyncBatchNorm extends AbstractBlock {

    private static final byte VERSION = 1;

    private final BatchNorm batchNorm;
    private final Parameter gamma;
    private final Parameter beta;
    private final Parameter runningMean;
    private final Parameter runningVar;
    private final float epsilon;
    private final float momentum;

    /** Wraps {@code batchNorm}, sharing its parameters; it must normalise over axis 1 (DJL's default). */
    public SyncBatchNorm(BatchNorm batchNorm) {
        super(VERSION);
        this.batchNorm = batchNorm;
        PairList<String, Parameter> own = batchNorm.getDirectParameters();
        gamma = own.get("gamma");
        beta = own.get("beta");
        runningMean = own.get("runningMean");
        runningVar = own.get("runningVar");
        own.forEach(p -> addParameter(p.getValue()));
        if (this.<Integer>field("axis") != 1) {
            throw new IllegalArgumentException("SyncBatchNorm normalises over axis 1 (channels), DJL's default; this "
                    + "BatchNorm uses axis " + this.<Integer>field("axis") + ".");
        }
        epsilon = field("epsilon");
        momentum = field("momentum");
        if (batchNorm.isInitialized()) {
            inputShapes = batchNorm.getInputShapes();
        }
    }

    /**
     * Replaces every {@link BatchNorm} inside {@code net} by a {@link SyncBatchNorm} that shares its
     * parameters, as PyTorch's {@code convert_sync_batchnorm} does, and returns {@code net} (or the
     * replacement, when {@code net} itself is a BatchNorm); safe before or after initialisation.
     */
    public static Block convert(Block net) {
        if (net instanceof BatchNorm bn) {
            return new SyncBatchNorm(bn);
        }
        if (net instanceof AbstractBlock parent && !(net instanceof SyncBatchNorm)) {
            BlockList children = children(parent);
            for (int i = 0; i < children.size(); i++) {
                Block child = children.valueAt(i);
                Block converted = convert(child);
                if (converted != child) {
                    String key = children.keyAt(i);
                    children.remove(i);
                    children.add(i, key, converted);
                }
            }
        }
        return net;
    }

    /** How many SyncBatchNorm blocks {@code net} holds, and how many plain BatchNorm blocks outside them: {sync, plain}. */
    public static int[] count(Block net) {
        int[] c = new int[2];
        if (net instanceof SyncBatchNorm) {
            c[0]++;
        } else if (net instanceof BatchNorm) {
            c[1]++;
        } else {
            for (Block child : net.getChildren().values()) {
                int[] d = count(child);
                c[0] += d[0];
                c[1] += d[1];
            }
        }
        return c;
    }

    /** The wrapped {@link BatchNorm}. */
    public BatchNorm getBatchNorm() {
        return batchNorm;
    }

    @Override
    protected NDList forwardInternal(ParameterStore parameterStore, NDList inputs, boolean training,
            PairList<String, Object> params) {
        if (!training || !(parameterStore instanceof BatchNormGroup.Store store)) {
            return batchNorm.forward(parameterStore, inputs, training, params);
        }
        NDArray x = inputs.singletonOrThrow();
        Device device = x.getDevice();
        int[] axes = statisticsAxes(x.getShape());
        long count = x.getShape().size() / x.getShape().get(1);
        // Every scalar in this graph comes from Scalars.of: DJL's div(Number) would leave autograd one in freed memory.
        NDArray n = Scalars.of(x, count);
        NDArray mean = x.sum(axes).div(n); // (DJL's PyTorch mean takes one axis at a time)
        // An array as large as x that autograd does not keep is closed at once: DJL would hold it until the
        // whole forward pass ends (two per layer: 240 MB of ResNet-18's, width 16, batch 256 on 2 replicas)
        NDArray squared = x.sub(perChannel(mean, x.getShape())).square();
        NDArray var = squared.sum(axes).div(n); // biased, as batch_norm's
        squared.close();
        NDManager own = x.getManager();
        Combined global = store.exchange(this, new BatchNormGroup.Stats(mean, var, count), all -> combine(all, device, own));
        NDArray globalMean = global.mean();
        NDArray globalVar = global.var();
        long total = global.count();
        NDArray g = store.getValue(gamma, device, true);
        NDArray b = store.getValue(beta, device, true);
        // y = (x - mean) / sqrt(var + eps) * gamma + beta, centred before scaling: gamma's and the variance's
        // gradients are then sums of dy (x - mean), not differences of two large sums as with x * scale + shift
        NDArray scale = globalVar.add(Scalars.of(globalVar, epsilon)).pow(Scalars.of(globalVar, -0.5));
        if (g != null) {
            scale = scale.mul(g);
        }
        NDArray y = x.sub(perChannel(globalMean, x.getShape())).mul(perChannel(scale, x.getShape()));
        if (b != null) {
            NDArray scaled = y;
            y = scaled.add(perChannel(b, x.getShape()));
            scaled.close(); // an addition keeps neither input for its backward pass
        }
        updateRunning(store.getValue(runningMean, device, true), store.getValue(runningVar, device, true),
                globalMean, globalVar, total);
        return new NDList(y);
    }

    /**
     * The global batch's per-channel mean and biased variance from every replica's, by Chan et al.'s
     * combination (the mean of the means, and the within- plus between-shard variance, weighted by
     * counts), on {@code device}, differentiable in every replica's statistics, attached to {@code own}.
     */
    private static Combined combine(List<BatchNormGroup.Stats> all, Device device, NDManager own) {
        long total = all.stream().mapToLong(BatchNormGroup.Stats::count).sum();
        NDArray mean = null;
        for (BatchNormGroup.Stats s : all) {
            NDArray m = s.mean().toDevice(device, false);
            NDArray term = m.mul(Scalars.of(m, (double) s.count() / total));
            mean = mean == null ? term : mean.add(term);
        }
        NDArray var = null;
        for (BatchNormGroup.Stats s : all) {
            NDArray m = s.mean().toDevice(device, false);
            NDArray term = s.var().toDevice(device, false).add(m.sub(mean).square()).mul(Scalars.of(m, (double) s.count() / total));
            var = var == null ? term : var.add(term);
        }
        mean.attach(own); // the sums began in another replica's manager, which it frees after its forward pass
        var.attach(own);
        return new Combined(mean, var, total);
    }

    /** The global batch's statistics, held by the replica that combined them. */
    private record Combined(NDArray mean, NDArray var, long count) {}

    /** running = momentum running + (1 - momentum) batch statistic, with the unbiased variance, as PyTorch's batch_norm. */
    private void updateRunning(NDArray mean, NDArray var, NDArray batchMean, NDArray batchVar, long total) {
        try (NoGrad g = NoGrad.scope(); NDManager tmp = mean.getManager().newSubManager()) {
            tmp.tempAttachAll(batchMean, batchVar);
            double unbiased = total > 1 ? (double) total / (total - 1) : 1;
            mean.muli(momentum).addi(batchMean.mul(1 - momentum));
            var.muli(momentum).addi(batchVar.mul(unbiased * (1 - momentum)));
        }
    }

    private static int[] statisticsAxes(Shape shape) {
        int[] axes = new int[shape.dimension() - 1];
        axes[0] = 0;
        for (int i = 2; i < shape.dimension(); i++) {
            axes[i - 1] = i;
        }
        return axes;
    }

    /** A per-channel vector (C) shaped to broadcast over an array of {@code shape} (B, C, ...). */
    private static NDArray perChannel(NDArray v, Shape shape) {
        long[] s = new long[shape.dimension()];
        java.util.Arrays.fill(s, 1);
        s[1] = shape.get(1);
        return v.reshape(new Shape(s));
    }

    @Override
    public Shape[] getOutputShapes(Shape[] inputShapes) {
        return new Shape[] {inputShapes[0]};
    }

    @Override
    public void initialize(NDManager manager, DataType dataType, Shape... shapes) {
        batchNorm.initialize(manager, dataType, shapes);
        beforeInitialize(shapes);
    }

    private <T> T field(String name) {
        return DjlFields.get(BatchNorm.class, name, batchNorm, "synchronised BatchNorm (the layer's settings)");
    }

    private static BlockList children(AbstractBlock block) {
        return DjlFields.get(AbstractBlock.class, "children", block, "swapping BatchNorm for SyncBatchNorm");
    }
}
