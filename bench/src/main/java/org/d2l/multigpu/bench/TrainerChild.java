package org.d2l.multigpu.bench;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.Batch;
import ai.djl.training.evaluator.Accuracy;
import ai.djl.training.listener.EvaluatorTrainingListener;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.translate.Batchifier;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.d2l.multigpu.bench.harness.ChildProcess;
import org.d2l.multigpu.bench.harness.Machine;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.eval.Timer;
import org.d2l.multigpu.models.Init;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.models.ResNet;
import org.d2l.multigpu.models.SyncBatchNorm;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.runtime.Djl;

/**
 * A child run of {@link Bench}: one configuration measured in this JVM (DJL's Trainer, the trainer
 * with k replicas, FLOAT16 or FLOAT32, or an averaging run through {@link AveragingChild}).
 */
final class TrainerChild {

    /** The learning rate of every run (plain SGD). */
    private static final float LR = 0.05f;

    private TrainerChild() {}

    /** One training step on a batch: what it needs made before the clock starts, then the step the clock times. */
    interface StepRunner {
        /** Makes what the step needs from {@code batch} (not timed) and returns the step (timed). */
        Step prepare(NDList batch) throws Exception;
    }

    /** A step ready to run. */
    interface Step {
        /** Runs the step. */
        void run() throws Exception;
    }

    /**
     * Measures {@code o.child} and prints {@code RESULT config examples/s peakRssKb medianMsPerStep
     * minorPageFaultsPerStep}.
     */
    static void run(BenchOptions o) throws Exception {
        Djl.setup();
        String config = BenchOptions.isaCap(o.child) != null ? "dp1" : o.child.replace("-glibc", "");
        int batch = o.batch;
        int steps = o.steps;
        int warmup = o.warmup;
        boolean gpu = o.gpu();
        if (gpu && Devices.gpuCount() == 0) {
            throw new IllegalStateException("--device gpu, but DJL sees no GPU: build with -Dgpu (MVN_ARGS=-Dgpu) "
                    + "so that the CPU natives are left out, on a machine with an NVIDIA GPU.");
        }
        Device home = gpu ? Device.gpu(0) : Device.cpu();
        try (NDManager manager = NDManager.newBaseManager(Device.cpu())) {
            manager.getEngine().setRandomSeed(42);
            List<NDList> batches = "random".equals(o.data) ? PreloadedBatches.random(manager, batch, o.limit)
                    : PreloadedBatches.fashionMnist(manager, batch, o.limit);
            Block net = o.model.startsWith("resnet18") ? ResNet.resnet18(10, 1, o.resnetWidth())
                    : o.model.equals("dl4j") ? Init.weights(LeNet.dl4jExample(), Init.xavier())
                    : o.model.equals("lenet-sigmoid") ? ClassicLeNet.block() : LeNet.block();
            Shape input = new Shape(1, 1, 28, 28);
            StepRunner run;
            AutoCloseable resource;
            if (config.equals("djl") || config.equals("djl-metrics")) {
                Model m = Model.newInstance("bench", home);
                m.setBlock(net);
                DefaultTrainingConfig djlConfig = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                        .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(LR)).build())
                        .optDevices(new Device[] {home})
                        .optInitializer(Init.pytorchLike(), Parameter.Type.WEIGHT);
                if (config.equals("djl-metrics")) {
                    // the training loss and accuracy of every batch, which the trainer's step also computes: DJL's
                    // way, as d2l-java's training loop does (an Accuracy evaluator beside the loss, updated per batch)
                    djlConfig.addEvaluator(new Accuracy()).addTrainingListeners(new EvaluatorTrainingListener());
                }
                Trainer trainer = m.newTrainer(djlConfig);
                trainer.initialize(input);
                run = b -> {
                    // A Batch owns its arrays, and the step's arrays go with its manager: DJL gets copies, made
                    // before the clock starts, as a data iterator makes each batch before the step (the
                    // trainer's batches are made outside its step too)
                    NDManager sub = manager.newSubManager();
                    Batch bt = new Batch(sub, new NDList(b.get(0).duplicate()), new NDList(b.get(1).duplicate()),
                            (int) b.get(0).getShape().get(0), Batchifier.STACK, Batchifier.STACK, 0, 0);
                    return () -> {
                        try (sub) {
                            EasyTrain.trainBatch(trainer, bt);
                            trainer.step();
                        }
                    };
                };
                resource = () -> {
                    trainer.close();
                    m.close();
                };
            } else if (config.startsWith("fp")) {
                DataParallelTrainer t = DataParallelTrainer.builder(net).setDevices(Devices.virtual(1))
                        .optInputShape(input).optLearningRate(LR).optProgress(false)
                        .optDataType(config.equals("fp16") ? DataType.FLOAT16 : DataType.FLOAT32).build();
                run = b -> () -> t.trainStep(b.get(0), b.get(1));
                resource = t;
            } else if (!config.startsWith("dp")) {
                AveragingChild.run(config, net, input, LR, batches, steps, warmup, batch);
                return;
            } else {
                // dpK, dpK-sync (synchronised BatchNorm), dpK-accN (N micro-batches per step)
                String[] parts = config.split("-");
                int k = Integer.parseInt(parts[0].substring(2));
                boolean sync = parts.length > 1 && parts[1].equals("sync");
                int accumulate = parts.length > 1 && parts[1].startsWith("acc") ? Integer.parseInt(parts[1].substring(3)) : 1;
                DataParallelTrainer t = DataParallelTrainer.builder(sync ? SyncBatchNorm.convert(net) : net)
                        .setDevices(Collections.nCopies(k, home)).optInputShape(input).optLearningRate(LR).optProgress(false)
                        .optSyncBatchNorm(sync).optAccumulate(accumulate).build();
                run = b -> () -> t.trainStep(b.get(0), b.get(1));
                resource = t;
            }
            for (int i = 0; i < warmup; i++) {
                run.prepare(batches.get(i % batches.size())).run();
            }
            Timer timer = new Timer();
            long faults = 0;
            for (int i = 0; i < steps; i++) {
                Step step = run.prepare(batches.get((warmup + i) % batches.size()));
                long before = Machine.minorFaults();
                timer.start();
                step.run();
                timer.stop();
                faults += Machine.minorFaults() - before;
            }
            net.getParameters().valueAt(0).getArray().sum().getFloat(); // waits for the GPU's queued work
            double perStep = faults / (double) steps;
            double seconds = timer.sum();
            resource.close();
            System.out.printf(Locale.ROOT, "%s %s %.3f %d %.3f %.0f%n", ChildProcess.RESULT, config,
                    steps * (double) batch / seconds, Machine.peakRssKb(), timer.median() * 1e3, perStep);
        }
    }
}
