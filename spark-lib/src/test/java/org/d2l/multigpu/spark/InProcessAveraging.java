package org.d2l.multigpu.spark;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterStore;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.util.Pair;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.parallel.FromScratch;

/**
 * The reference the Spark job must equal, written independently: k replicas in one process, round r
 * gives replica p minibatch r * k + p and one local SGD step, every n rounds the replicas are averaged.
 */
final class InProcessAveraging {

    private InProcessAveraging() {}

    static ParameterValues train(ParameterValues start, List<Minibatch> batches, int k, int n, float lr) {
        try (NDManager manager = NDManager.newBaseManager()) {
            List<Block> replicas = new ArrayList<>();
            List<Optimizer> optimizers = new ArrayList<>();
            for (int p = 0; p < k; p++) {
                Block net = Models.LENET.newBlock();
                net.initialize(manager, DataType.FLOAT32, Models.LENET.inputShape());
                for (Pair<String, Parameter> q : net.getParameters()) {
                    q.getValue().getArray().setRequiresGradient(true);
                }
                start.loadInto(net);
                replicas.add(net);
                optimizers.add(OptimizerFactory.sgd(lr).newOptimizer());
            }
            int rounds = batches.size() / k;
            for (int r = 0; r < rounds; r++) {
                for (int p = 0; p < k; p++) {
                    step(replicas.get(p), optimizers.get(p), batches.get(r * k + p), manager);
                }
                if ((r + 1) % n == 0 || r == rounds - 1) {
                    ParameterValues sum = null;
                    for (Block net : replicas) {
                        ParameterValues v = ParameterValues.of(net);
                        sum = sum == null ? v : sum.plus(v);
                    }
                    ParameterValues mean = sum.dividedBy(k);
                    replicas.forEach(mean::loadInto);
                }
            }
            return ParameterValues.of(replicas.get(0));
        }
    }

    private static void step(Block net, Optimizer opt, Minibatch b, NDManager manager) {
        try (NDManager step = manager.newSubManager()) {
            NDArray x = b.x(step);
            NDArray y = b.y(step);
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                NDArray yHat = net.forward(new ParameterStore(step, false), new NDList(x), true).head();
                gc.backward(Loss.softmaxCrossEntropyLoss().evaluate(new NDList(y), new NDList(yHat)));
            }
            for (Pair<String, Parameter> q : net.getParameters()) {
                NDArray w = q.getValue().getArray();
                try (NDArray g = w.getGradient()) {
                    opt.update(q.getKey(), w, g);
                    FromScratch.zero(g);
                }
            }
        }
    }
}
