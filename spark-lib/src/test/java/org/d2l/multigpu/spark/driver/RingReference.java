package org.d2l.multigpu.spark.driver;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.util.Pair;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.collective.RingSchedule;
import org.d2l.multigpu.optimizer.OptimizerState;
import org.d2l.multigpu.spark.Minibatch;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ParameterValues;
import org.d2l.multigpu.spark.Shard;
import org.d2l.multigpu.spark.SplitData;
import org.d2l.multigpu.spark.ring.TcpRing;
import org.d2l.multigpu.spark.task.AllreduceTask;

/**
 * What {@link AllreduceTrainer} computes on k ranks, in one process and without sockets: k replicas run
 * the tasks' own step ({@link AllreduceTask#forwardBackward}, {@link AllreduceTask#flatten},
 * {@link AllreduceTask#applyUpdate}), and their gradient buffers are summed in the order of
 * {@link org.d2l.multigpu.spark.ring.TcpRing#allreduce}: the same {@link RingSchedule}, each received chunk added to the rank's own
 * ({@code own + received}), one step of every rank at a time. For k > 2 that order differs from the
 * in-process trainer's (replica 0 + 1 + 2 ...), so this is the reference that the ring must equal bit for bit.
 */
final class RingReference {

    private RingReference() {}

    /** The parameters after each of {@code epochs} epochs over {@code batches} on {@code k} ranks from {@code start}. */
    static List<ParameterValues> train(ParameterValues start, List<Minibatch> batches, int k, OptimizerFactory factory,
            int epochs, int bucketElements) {
        int threads = JniUtils.getNumThreads();
        JniUtils.setNumThreads(1); // as each Spark task of one CPU
        try (NDManager manager = NDManager.newBaseManager()) {
            List<Block> nets = new ArrayList<>();
            List<Optimizer> opts = new ArrayList<>();
            for (int r = 0; r < k; r++) {
                Block net = Models.LENET.newBlock();
                net.initialize(manager, DataType.FLOAT32, Models.LENET.inputShape());
                start.loadInto(net);
                nets.add(net);
                Optimizer opt = factory.newOptimizer();
                OptimizerState.startCountingAt(opt, 0);
                opts.add(opt);
            }
            List<Shard> shards = SplitData.split(batches, k);
            long[] globalExamples = batches.stream().mapToLong(Minibatch::size).toArray();
            Loss loss = Loss.softmaxCrossEntropyLoss();
            List<ParameterValues> after = new ArrayList<>();
            int steps = batches.size();
            for (int e = 0; e < epochs; e++) {
                for (int s = 0; s < steps; s++) {
                    long n = globalExamples[s];
                    int active = (int) Math.min(k, n);
                    float[][] buffers = new float[k][];
                    try (NDManager step = manager.newSubManager()) {
                        for (int r = 0; r < k; r++) {
                            List<Pair<String, Parameter>> all = nets.get(r).getParameters().stream().toList();
                            long elements = all.stream().mapToLong(p -> p.getValue().getArray().size()).sum();
                            buffers[r] = new float[Math.toIntExact(elements)];
                            Minibatch b = shards.get(r).batches().get(s);
                            if (b.size() > 0) {
                                AllreduceTask.forwardBackward(nets.get(r), loss, b, n, step, r, s, e * steps + s);
                            }
                            AllreduceTask.flatten(all, buffers[r], b.size() > 0);
                        }
                        ringSum(buffers, bucketElements);
                        for (int r = 0; r < k; r++) {
                            AllreduceTask.applyUpdate(nets.get(r).getParameters().stream().toList(), buffers[r], opts.get(r),
                                    active, step);
                        }
                    }
                }
                after.add(ParameterValues.of(nets.get(0)));
            }
            return after;
        } finally {
            JniUtils.setNumThreads(threads);
        }
    }

    /** Sums the ranks' buffers in place as {@link org.d2l.multigpu.spark.ring.TcpRing#allreduce} does, bucket by bucket. */
    static void ringSum(float[][] data, int bucket) {
        int k = data.length;
        int length = data[0].length;
        for (int start = 0; start < length; start += bucket) {
            RingSchedule ring = RingSchedule.allreduce(Math.min(bucket, length - start), k);
            for (int s = 0; s < ring.steps(); s++) {
                step(data, start, ring, s, true);
            }
            for (int s = 0; s < ring.steps(); s++) {
                step(data, start, ring, s, false);
            }
        }
    }

    /** One step of every rank: each receives its previous rank's chunk as it was sent, then adds or keeps it. */
    private static void step(float[][] data, int offset, RingSchedule ring, int s, boolean add) {
        int k = data.length;
        float[][] sent = new float[k][];
        for (int r = 0; r < k; r++) {
            int c = add ? ring.reduceScatterSend(r, s) : ring.allGatherSend(r, s);
            int from = offset + (int) ring.chunkStart(c);
            sent[r] = java.util.Arrays.copyOfRange(data[r], from, from + (int) ring.chunkSize(c));
        }
        for (int r = 0; r < k; r++) {
            int c = add ? ring.reduceScatterReceive(r, s) : ring.allGatherReceive(r, s);
            int from = offset + (int) ring.chunkStart(c);
            float[] got = sent[(r + k - 1) % k];
            for (int i = 0; i < got.length; i++) {
                data[r][from + i] = add ? data[r][from + i] + got[i] : got[i];
            }
        }
    }
}
