package org.d2l.multigpu.bench;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.EasyTrain;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.Batch;
import ai.djl.training.evaluator.Accuracy;
import ai.djl.training.listener.EvaluatorTrainingListener;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.translate.Batchifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.d2l.multigpu.bench.harness.Measurements;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.step.Phase;
import org.d2l.multigpu.step.StepPhases;

/**
 * Where one step's time goes, the trainer with 1 replica beside DJL's Trainer in one JVM (suite {@code profile}). Four
 * sides take turns step by step on the same batches of 256 random images, from the same starting values (DJL's default
 * initialiser is not the trainer's): the trainer, bare DJL, DJL computing the training loss and accuracy as d2l-java
 * does, and bare DJL again, whose ratio to the first says what two runs of the same code differ by in this JVM. Each
 * side takes each place in a turn equally often (of two identical DJL trainers taking turns, the second ran its
 * backward pass 0.1 to 0.3 ms slower). After 20 warm-up steps each the JIT has compiled DJL's array calls, which run
 * many times a step, but not yet code that runs once a step. The trainer's phases come from its own record
 * ({@code recentSteps}), bare DJL's from clock readings around the forward pass and loss, the backward pass and
 * {@code Trainer.step} (EasyTrain.trainBatch's work, without its batch split); what the trainer spends outside its phases
 * (reading the loss and accuracy, the step's manager) is its rest, and DJL's rest is freeing its step's arrays
 * (closing the manager that holds them), which the trainer's rest includes. On a GPU ({@code gpu} as the third
 * argument) the phases are the host's time: the kernels run asynchronously, and a step waits for them where it reads a
 * number back. The trainer reads its loss and accuracy every step, so bare DJL then reads its loss too (in its rest),
 * which makes every side wait for its step's kernels.
 */
public final class StepProfile {

    private StepProfile() {}

    /** Arguments: the model (lenet or lenet-sigmoid), the number of steps each side takes, cpu or gpu, and the warm-up steps (20). */
    public static void main(String[] args) {
        Djl.setup();
        String model = args.length > 0 ? args[0] : "lenet-sigmoid";
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        String where = args.length > 2 ? args[2] : "cpu";
        int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 20;
        if (!where.equals("cpu") && !where.equals("gpu")) {
            throw new IllegalArgumentException("profile runs on cpu or gpu, got " + where + ".");
        }
        boolean gpu = where.equals("gpu");
        if (gpu && Devices.gpuCount() == 0) {
            throw new IllegalStateException("profile on gpu: DJL sees no GPU on this machine.");
        }
        Device device = gpu ? Device.gpu(0) : Device.cpu();
        try (NDManager manager = NDManager.newBaseManager(device)) {
            manager.getEngine().setRandomSeed(42);
            List<NDList> batches = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                batches.add(new NDList(manager.randomUniform(0, 1, new Shape(256, 1, 28, 28)),
                        manager.randomInteger(0, 10, new Shape(256), DataType.INT32).toType(DataType.FLOAT32, false)));
            }
            Shape input = new Shape(1, 1, 28, 28);
            Block net = block(model);
            try (Model m = Model.newInstance("djl", device);
                    Model mm = Model.newInstance("djl-metrics", device);
                    Model m2 = Model.newInstance("djl-again", device);
                    DataParallelTrainer ours = DataParallelTrainer.builder(net)
                            .setDevices(gpu ? List.of(device) : Devices.virtual(1))
                            .optInputShape(input).optLearningRate(0.1f).optProgress(false).build()) {
                m.setBlock(block(model));
                mm.setBlock(block(model));
                m2.setBlock(block(model));
                try (Trainer djl = m.newTrainer(djlConfig(device));
                        Trainer djlAgain = m2.newTrainer(djlConfig(device));
                        Trainer djlMetrics = mm.newTrainer(djlConfig(device).addEvaluator(new Accuracy())
                                .addTrainingListeners(new EvaluatorTrainingListener()))) {
                    djl.initialize(input);
                    djlMetrics.initialize(input);
                    djlAgain.initialize(input);
                    // the same starting values everywhere (DJL's default initialiser is not the trainer's)
                    copyParameters(net, m.getBlock());
                    copyParameters(net, mm.getBlock());
                    copyParameters(net, m2.getBlock());
                    double[] djlPhases = new double[4];
                    double[] ourPhases = new double[Phase.values().length];
                    double[] totals = new double[4];
                    double[][] perStep = new double[4][steps]; // bare DJL, the trainer, DJL with metrics, DJL again
                    for (int s = -warmup; s < steps; s++) {
                        NDList b = batches.get(Math.floorMod(s, batches.size()));
                        double[] d = null;
                        double oursMs = 0;
                        double metricsMs = 0;
                        double againMs = 0;
                        // whoever goes later in a turn is slower (two DJL trainers measured so): each side takes
                        // each place in the turn equally often
                        for (int turn = 0; turn < 4; turn++) {
                            switch (Math.floorMod(s + turn, 4)) {
                                case 0 -> d = djlStep(djl, manager, b, gpu);
                                case 1 -> {
                                    long t0 = System.nanoTime();
                                    ours.trainStep(b.get(0), b.get(1));
                                    oursMs = (System.nanoTime() - t0) / 1e6;
                                }
                                case 2 -> metricsMs = easyTrainStep(djlMetrics, manager, b);
                                default -> againMs = Arrays.stream(djlStep(djlAgain, manager, b, gpu)).sum();
                            }
                        }
                        if (s >= 0) {
                            for (int i = 0; i < d.length; i++) {
                                djlPhases[i] += d[i];
                                totals[0] += d[i];
                            }
                            StepPhases p = ours.recentSteps().get(ours.recentSteps().size() - 1);
                            for (Phase ph : Phase.values()) {
                                ourPhases[ph.ordinal()] += p.millis(0, ph);
                            }
                            totals[1] += oursMs;
                            totals[2] += metricsMs;
                            totals[3] += againMs;
                            perStep[0][s] = Arrays.stream(d).sum();
                            perStep[1][s] = oursMs;
                            perStep[2][s] = metricsMs;
                            perStep[3][s] = againMs;
                        }
                    }
                    print(model, steps, warmup, where, djlPhases, ourPhases, totals, perStep);
                }
            }
        }
    }

    private static void copyParameters(Block from, Block to) {
        for (int i = 0; i < from.getParameters().size(); i++) {
            to.getParameters().valueAt(i).getArray().set(from.getParameters().valueAt(i).getArray().toFloatArray());
        }
    }

    private static DefaultTrainingConfig djlConfig(Device device) {
        return new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.1f)).build())
                .optDevices(new Device[] {device});
    }

    /**
     * One step of DJL computing the training loss and accuracy as d2l-java's loop does (its listener updates the
     * evaluators with each batch): EasyTrain.trainBatch and Trainer.step on copies of {@code b}, then its arrays
     * freed; milliseconds.
     */
    private static double easyTrainStep(Trainer trainer, NDManager manager, NDList b) {
        try (NDManager sub = manager.newSubManager()) {
            NDArray x = b.get(0).duplicate();
            NDArray y = b.get(1).duplicate();
            sub.attachAll(x, y);
            long t0 = System.nanoTime();
            Batch batch = new Batch(sub, new NDList(x), new NDList(y), (int) x.getShape().get(0), Batchifier.STACK,
                    Batchifier.STACK, 0, 0);
            EasyTrain.trainBatch(trainer, batch);
            trainer.step();
            sub.close();
            return (System.nanoTime() - t0) / 1e6;
        }
    }

    private static Block block(String model) {
        return switch (model) {
            case "lenet" -> LeNet.block();
            case "lenet-sigmoid" -> ClassicLeNet.block();
            default -> throw new IllegalArgumentException("profile takes lenet or lenet-sigmoid, got " + model + ".");
        };
    }

    /**
     * One DJL step on copies of {@code b}: milliseconds of forward and loss, backward, Trainer.step, and the rest:
     * (when {@code readLoss}) reading the loss back, and freeing the step's arrays, as the trainer's rest does.
     */
    private static double[] djlStep(Trainer trainer, NDManager manager, NDList b, boolean readLoss) {
        try (NDManager sub = manager.newSubManager()) { // closed inside the clock below; closing twice is harmless
            NDArray x = b.get(0).duplicate();
            NDArray y = b.get(1).duplicate();
            sub.attachAll(x, y);
            long t0 = System.nanoTime();
            long t1;
            long t2;
            NDArray l;
            try (GradientCollector gc = trainer.newGradientCollector()) {
                NDList preds = trainer.forward(new NDList(x));
                l = trainer.getLoss().evaluate(new NDList(y), preds);
                t1 = System.nanoTime();
                gc.backward(l);
                t2 = System.nanoTime();
            }
            trainer.step();
            long t3 = System.nanoTime();
            if (readLoss) {
                l.getFloat();
            }
            sub.close(); // the step's arrays (its inputs' copies, outputs, loss) freed
            long t4 = System.nanoTime();
            return new double[] {(t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e6, (t4 - t3) / 1e6};
        }
    }

    /** The median over the steps of side {@code a}'s time over side {@code b}'s in the same turn. */
    private static double medianRatio(double[][] perStep, int a, int b) {
        double[] r = new double[perStep[a].length];
        for (int s = 0; s < r.length; s++) {
            r[s] = perStep[a][s] / perStep[b][s];
        }
        return Measurements.median(r);
    }

    private static void print(String model, int steps, int warmup, String where, double[] djl, double[] ours, double[] totals,
            double[][] perStep) {
        double oursInPhases = Arrays.stream(ours).sum();
        boolean gpu = where.equals("gpu");
        System.out.printf(Locale.ROOT, "### Where a step's time goes: %s, batch 256, 1 replica on the %s, %d steps each after %d "
                + "warm-up steps, taking turns (ms per step, means%s)%n%n", model, where.toUpperCase(Locale.ROOT), steps, warmup,
                gpu ? "; the host's time, the GPU's kernels running behind it" : "");
        System.out.println("| | data | forward (and loss) | backward | sync | update (and zeroing) | rest | step |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        System.out.printf(Locale.ROOT, "| DJL Trainer + the work of EasyTrain.trainBatch | - | %.2f | %.2f | - | %.2f | %s | %.2f |%n",
                djl[0] / steps, djl[1] / steps, djl[2] / steps, String.format(Locale.ROOT, "%.2f", djl[3] / steps),
                totals[0] / steps);
        System.out.printf(Locale.ROOT, "| DataParallelTrainer.trainStep | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |%n",
                ours[0] / steps, ours[1] / steps, ours[2] / steps, ours[3] / steps, ours[4] / steps,
                (totals[1] - oursInPhases) / steps, totals[1] / steps);
        System.out.printf(Locale.ROOT, "| DJL with the training loss and accuracy (EasyTrain.trainBatch, an Accuracy evaluator and "
                + "EvaluatorTrainingListener) | | | | | | | %.2f |%n", totals[2] / steps);
        System.out.printf(Locale.ROOT, "| DJL again (a second Trainer, the same starting values) | | | | | | | %.2f |%n",
                totals[3] / steps);
        System.out.println();
        System.out.printf(Locale.ROOT, "Trainer over DJL: %.3f bare, %.3f with the training loss and accuracy; DJL again over "
                + "DJL: %.3f (what two runs of the same code differ by here).%n", totals[1] / totals[0], totals[1] / totals[2],
                totals[3] / totals[0]);
        System.out.printf(Locale.ROOT, "Medians of the ratios of steps in the same turn: trainer over DJL %.3f bare, %.3f with "
                + "the training loss and accuracy; DJL again over DJL %.3f.%n",
                medianRatio(perStep, 1, 0), medianRatio(perStep, 1, 2), medianRatio(perStep, 3, 0));
        System.out.println();
        System.out.println("DJL's update column is Trainer.step (the optimizer and the gradients' zeroing); the trainer's "
                + "rest is its time outside the recorded phases (reading each step's loss and accuracy, the step's arrays "
                + "freed, the rollback copy of running statistics); DJL's rest is freeing its step's arrays" + (gpu ? " and reading "
                + "its loss back, where its host waits for the step's kernels." : "."));
    }
}
