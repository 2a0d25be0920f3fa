package org.d2l.multigpu.runtime;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.pooling.Pool;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A known-answer test of the CPU kernels that training LeNet runs, in two parts. First the training
 * loop in which AMD Zen 5 CPUs were seen to produce NaN losses at random (LeNet, DJL's {@code Trainer},
 * SGD at learning rate 0.1, random images and labels, fresh networks of a few steps each): every loss
 * must be finite. Then, for a few more such networks, each step's operations one by one (both
 * convolutions, both dense layers and both poolings, forward and backward, and the SGD update), each
 * against float64 within {@link ErrorBound}'s bound. Run by {@link CpuCheck} in a child JVM (its
 * {@link #main} prints one {@code CHECK} line per finding and exits 1 when anything failed); also the
 * reproduction to run by hand, {@code scripts/cpu-check.sh}.
 */
public final class KernelSelfTest {

    /** The first word of every line of the result. */
    public static final String PREFIX = "CHECK";

    private final int batch;
    private final int runs;
    private final int steps;
    private final int opRuns;
    private final boolean stopAtFirst;
    private boolean verbose;
    /** Per operation and pass (e.g. "conv2 backward weights (8,20,13,13)"): checked, failed, non-finite, worst ratio. */
    private final Map<String, double[]> ops = new LinkedHashMap<>();
    private final List<String> findings = new ArrayList<>();
    /** With --verbose, the operations that stayed within their bound. */
    private final List<String> within = new ArrayList<>();
    private int nanRuns;

    KernelSelfTest(int batch, int runs, int steps, int opRuns, boolean stopAtFirst) {
        this.batch = batch;
        this.runs = runs;
        this.steps = steps;
        this.opRuns = opRuns;
        this.stopAtFirst = stopAtFirst;
    }

    /**
     * Runs the test: {@code --batch 8 --runs 20 --steps 20 --op-runs 2} by default, {@code --stop-at-first}
     * to stop at the first failure, {@code --verbose} to print every operation's result; prints its findings
     * and a summary, exits 1 when anything failed.
     */
    public static void main(String[] args) {
        Map<String, String> o = new LinkedHashMap<>(Map.of("--batch", "8", "--runs", "20", "--steps", "20",
                "--op-runs", "2"));
        boolean stop = false;
        boolean verbose = false;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--stop-at-first")) {
                stop = true;
            } else if (args[i].equals("--verbose")) {
                verbose = true;
            } else if (o.containsKey(args[i]) && i + 1 < args.length && args[i + 1].matches("[0-9]+")) {
                o.put(args[i], args[++i]);
            } else {
                System.err.println("usage: KernelSelfTest [--batch N] [--runs N] [--steps N] [--op-runs N] [--stop-at-first] [--verbose]"
                        + " (bad argument: " + args[i] + ")");
                System.exit(2);
            }
        }
        Djl.setup();
        KernelSelfTest t = new KernelSelfTest(Integer.parseInt(o.get("--batch")), Integer.parseInt(o.get("--runs")),
                Integer.parseInt(o.get("--steps")), Integer.parseInt(o.get("--op-runs")), stop);
        t.verbose = verbose;
        boolean ok = t.run();
        t.within.forEach(f -> System.out.println(PREFIX + " within: " + f));
        t.findings.forEach(f -> System.out.println(PREFIX + " " + f));
        System.out.println(PREFIX + " " + t.summary());
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    /** Runs both parts and returns whether every loss was finite and every operation within its bound. */
    boolean run() {
        for (int r = 0; r < runs && !(stopAtFirst && nanRuns > 0); r++) {
            int nanStep = trainingRun(r);
            if (nanStep > 0) {
                nanRuns++;
                findings.add(String.format(Locale.ROOT, "training run %d of %d: the loss is not finite from step %d on "
                        + "(LeNet, batch %d, SGD lr 0.1, random data)", r + 1, runs, nanStep, batch));
            }
        }
        for (int r = 0; r < opRuns && !(stopAtFirst && !findings.isEmpty()); r++) {
            opRun(runs + r);
        }
        for (Map.Entry<String, double[]> e : ops.entrySet()) {
            double[] v = e.getValue();
            String line = String.format(Locale.ROOT, "%s: %.0f of %.0f elements outside the float32 bound "
                    + "(%.0f not finite), worst |error| / bound %.3g", e.getKey(), v[1], v[0], v[2], v[3]);
            if (v[1] > 0) {
                findings.add(line);
            } else if (verbose) {
                within.add(line);
            }
        }
        return findings.isEmpty();
    }

    /** The result in one line: pass or fail, the training runs with a NaN loss, the elements checked. */
    String summary() {
        double checked = ops.values().stream().mapToDouble(v -> v[0]).sum();
        double worst = ops.values().stream().mapToDouble(v -> v[3]).max().orElse(0);
        return String.format(Locale.ROOT, "%s: NaN loss in %d of %d training runs (batch %d, %d steps each); %d operations "
                + "checked against float64 on %.0f elements, largest |error| / bound %.3g", findings.isEmpty() ? "pass" : "FAIL",
                nanRuns, runs, batch, steps, ops.size(), checked, worst);
    }

    /** One fresh LeNet trained for {@code steps} steps as in the reported loop; the first step whose loss is not finite, or 0. */
    private int trainingRun(int run) {
        return train(run, null);
    }

    /** One fresh LeNet trained for {@code steps} steps, every operation of every step checked against float64. */
    private void opRun(int run) {
        train(run, this::checkLayers);
    }

    /** What {@link #train} also checks in a step: the layers on the step's images, before the step's own pass. */
    private interface StepCheck {
        void check(NDArray x, List<NDArray> parameters, NDManager step);
    }

    /**
     * Trains a fresh LeNet (seed 1000 + {@code run}) for {@code steps} steps of the reported loop, and with
     * {@code check} also checks each step's layers and its SGD update; returns the first step whose loss
     * is not finite, or 0.
     */
    private int train(int run, StepCheck check) {
        Engine.getInstance().setRandomSeed(1000 + run);
        try (Model model = Model.newInstance("lenet-self-test")) {
            model.setBlock(lenet());
            try (Trainer trainer = model.newTrainer(config())) {
                trainer.initialize(new Shape(batch, 1, 28, 28));
                List<NDArray> p = new ArrayList<>();
                model.getBlock().getParameters().forEach(e -> p.add(e.getValue().getArray()));
                for (int s = 1; s <= steps; s++) {
                    try (NDManager step = trainer.getManager().newSubManager()) {
                        NDList xy = randomBatch(step);
                        List<NDArray> before = new ArrayList<>();
                        if (check != null) {
                            check.check(xy.get(0), p, step);
                            p.forEach(w -> before.add(w.duplicate()));
                            before.forEach(w -> w.attach(step));
                        }
                        float loss;
                        try (GradientCollector gc = trainer.newGradientCollector()) {
                            NDArray l = trainer.getLoss().evaluate(new NDList(xy.get(1)), trainer.forward(new NDList(xy.get(0))));
                            gc.backward(l);
                            loss = l.getFloat();
                        }
                        List<NDArray> grads = new ArrayList<>();
                        if (check != null) {
                            p.forEach(w -> grads.add(w.getGradient().duplicate()));
                            grads.forEach(g -> g.attach(step));
                        }
                        trainer.step();
                        for (int i = 0; i < grads.size(); i++) {
                            checkSgd(before.get(i), grads.get(i), p.get(i), i);
                        }
                        if (!Float.isFinite(loss)) {
                            return s;
                        }
                    }
                }
            }
        }
        return 0;
    }

    /** Checks LeNet's layers on the images {@code x} under its parameters {@code p} (conv1 W, b, conv2 W, b, dense W, b, dense W, b). */
    private void checkLayers(NDArray x, List<NDArray> p, NDManager step) {
        NDArray c1 = checkBilinear("conv1", x, p.get(0), p.get(1), step);
        NDArray h1 = checkPool("pool1", Activation.relu(c1), step);
        NDArray c2 = checkBilinear("conv2", h1, p.get(2), p.get(3), step);
        NDArray h2 = checkPool("pool2", Activation.relu(c2), step);
        NDArray d1 = checkBilinear("dense1", h2.reshape(h2.getShape().get(0), -1), p.get(4), p.get(5), step);
        checkBilinear("dense2", Activation.relu(d1), p.get(6), p.get(7), step);
    }

    /**
     * Checks y = op(x, w) + b and its gradients for a random head gradient g, where op is a convolution
     * (4-d x) or a dense layer, against float64 within {@link ErrorBound}; returns the float32 output.
     */
    private NDArray checkBilinear(String name, NDArray x, NDArray w, NDArray b, NDManager step) {
        boolean conv = x.getShape().dimension() == 4;
        NDArray[] v32 = withGradients(x, w, b, null, conv, step);
        NDArray g = step.randomNormal(v32[0].getShape());
        v32 = withGradients(x, w, b, g, conv, step);
        NDArray[] v64 = withGradients(x.toType(DataType.FLOAT64, false), w.toType(DataType.FLOAT64, false),
                b.toType(DataType.FLOAT64, false), g.toType(DataType.FLOAT64, false), conv, step);
        // |x| op |w| + |b| and the gradients of sum((|x| op |w|) * |g|): the sums of the terms' absolute values.
        NDArray[] abs = withGradients(v64[5].abs(), v64[6].abs(), v64[7].abs(), v64[8].abs(), conv, step);
        long out = v32[0].getShape().get(1);
        long spatial = v32[0].getShape().size() / (v32[0].getShape().get(0) * out); // B * OH * OW / B
        long inTerms = w.getShape().size() / w.getShape().get(0); // C_in * KH * KW, or in features
        long outTerms = conv ? out * w.getShape().size() / (w.getShape().get(0) * w.getShape().get(1)) : out;
        long batchTerms = x.getShape().get(0) * spatial;
        String shape = " " + x.getShape() + " x " + w.getShape();
        record(name + " forward" + shape, v32[0], v64[0], ErrorBound.ofSums(inTerms + 1, abs[0]));
        record(name + " backward data" + shape, v32[1], v64[1], ErrorBound.ofSums(outTerms, abs[1]));
        record(name + " backward weights" + shape, v32[2], v64[2], ErrorBound.ofSums(batchTerms, abs[2]));
        record(name + " backward bias" + shape, v32[3], v64[3], ErrorBound.ofSums(batchTerms, abs[3]));
        return v32[0];
    }

    /**
     * y = op(x, w) + b and, for a head gradient g (null: none), the gradients of sum(y * g) by x, w and b;
     * returns {y, dx, dw, db, g, x, w, b, g} (the leaves used, last).
     */
    private static NDArray[] withGradients(NDArray x, NDArray w, NDArray b, NDArray g, boolean conv, NDManager step) {
        NDArray[] leaves = {x.duplicate(), w.duplicate(), b.duplicate()};
        for (NDArray l : leaves) {
            l.attach(step);
            l.setRequiresGradient(g != null);
        }
        NDArray y;
        if (g == null) {
            try (NoGrad ng = NoGrad.scope()) {
                y = op(leaves, conv);
            }
            return new NDArray[] {y, null, null, null, null, leaves[0], leaves[1], leaves[2], null};
        }
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            y = op(leaves, conv);
            gc.backward(y.mul(g).sum());
        }
        return new NDArray[] {y, leaves[0].getGradient(), leaves[1].getGradient(), leaves[2].getGradient(), g,
                leaves[0], leaves[1], leaves[2], g};
    }

    private static NDArray op(NDArray[] xwb, boolean conv) {
        return conv ? ai.djl.nn.convolutional.Conv2d.conv2d(xwb[0], xwb[1], xwb[2]).singletonOrThrow()
                : ai.djl.nn.core.Linear.linear(xwb[0], xwb[1], xwb[2]).singletonOrThrow();
    }

    /** Checks 2x2 average pooling, stride 2, forward and backward; returns the float32 output. */
    private NDArray checkPool(String name, NDArray x, NDManager step) {
        NDArray[] v32 = pool(x, null, step);
        NDArray g = step.randomNormal(v32[0].getShape());
        v32 = pool(x, g, step);
        NDArray[] v64 = pool(x.toType(DataType.FLOAT64, false), g.toType(DataType.FLOAT64, false), step);
        NDArray[] abs = pool(x.toType(DataType.FLOAT64, false).abs(), g.toType(DataType.FLOAT64, false).abs(), step);
        record(name + " forward " + x.getShape(), v32[0], v64[0], ErrorBound.ofSums(4, abs[0]));
        record(name + " backward " + x.getShape(), v32[1], v64[1], ErrorBound.ofSums(1, abs[1]));
        return v32[0];
    }

    private static NDArray[] pool(NDArray x, NDArray g, NDManager step) {
        NDArray leaf = x.duplicate();
        leaf.attach(step);
        if (g == null) {
            try (NoGrad ng = NoGrad.scope()) {
                return new NDArray[] {avgPool(leaf)};
            }
        }
        leaf.setRequiresGradient(true);
        NDArray y;
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            y = avgPool(leaf);
            gc.backward(y.mul(g).sum());
        }
        return new NDArray[] {y, leaf.getGradient()};
    }

    private static NDArray avgPool(NDArray x) {
        return Pool.avgPool2d(x, new Shape(2, 2), new Shape(2, 2), new Shape(0, 0), false, true);
    }

    /** Checks SGD's update w = w0 - lr g (a multiply and a subtract, each rounded once) of parameter {@code i}. */
    private void checkSgd(NDArray w0, NDArray g, NDArray w, int i) {
        NDArray w064 = w0.toType(DataType.FLOAT64, false);
        NDArray step64 = g.toType(DataType.FLOAT64, false).mul(LR);
        NDArray bound = ErrorBound.ofSums(3, w064.abs().add(step64.abs())); // w - lr (rescale g + wd w): 3 roundings
        record("sgd update of parameter " + i + " " + w.getShape(), w, w064.sub(step64), bound);
    }

    private void record(String what, NDArray got, NDArray reference, NDArray bound) {
        double[] c = ErrorBound.compare(got, reference, bound);
        double[] v = ops.computeIfAbsent(what, k -> new double[4]);
        v[0] += got.size();
        v[1] += c[0];
        v[2] += c[1];
        v[3] = Math.max(v[3], c[2]);
    }

    private static final float LR = 0.1f;

    /** The lessons' LeNet ({@code models.LeNet.block()}), built here from DJL's blocks: runtime sits below models. */
    static ai.djl.nn.SequentialBlock lenet() {
        return new ai.djl.nn.SequentialBlock()
                .add(ai.djl.nn.convolutional.Conv2d.builder().setFilters(20).setKernelShape(new Shape(3, 3)).build())
                .add(Activation::relu)
                .add(Pool.avgPool2dBlock(new Shape(2, 2), new Shape(2, 2)))
                .add(ai.djl.nn.convolutional.Conv2d.builder().setFilters(50).setKernelShape(new Shape(5, 5)).build())
                .add(Activation::relu)
                .add(Pool.avgPool2dBlock(new Shape(2, 2), new Shape(2, 2)))
                .add(ai.djl.nn.Blocks.batchFlattenBlock())
                .add(ai.djl.nn.core.Linear.builder().setUnits(128).build())
                .add(Activation::relu)
                .add(ai.djl.nn.core.Linear.builder().setUnits(10).build());
    }

    private static DefaultTrainingConfig config() {
        return new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(LR)).build());
    }

    private NDList randomBatch(NDManager m) {
        NDArray x = m.randomUniform(0, 1, new Shape(batch, 1, 28, 28));
        NDArray y = m.randomInteger(0, 10, new Shape(batch), DataType.INT32).toType(DataType.FLOAT32, false);
        return new NDList(x, y);
    }
}
