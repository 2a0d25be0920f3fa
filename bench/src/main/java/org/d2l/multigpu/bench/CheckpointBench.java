package org.d2l.multigpu.bench;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.d2l.multigpu.bench.harness.Cli;
import org.d2l.multigpu.bench.harness.MarkdownTable;
import org.d2l.multigpu.bench.harness.Measurements;
import org.d2l.multigpu.checkpoint.Checkpoint;
import org.d2l.multigpu.checkpoint.CheckpointPolicy;
import org.d2l.multigpu.checkpoint.CheckpointStore;
import org.d2l.multigpu.checkpoint.Stateful;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.models.ResNet;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.runtime.Djl;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What a checkpoint after every epoch costs against the epoch (issue 28): LeNet or ResNet-18 with SGD and
 * momentum on random Fashion-MNIST-shaped images, one epoch without checkpoints and one with them (written
 * on the background thread) interleaved round by round, and the parts of one checkpoint: the copy the
 * training thread waits for, the write to disk (a background thread's), and its size.
 */
public final class CheckpointBench {

    /** The command line of {@link CheckpointBench}. */
    @Command(name = "CheckpointBench", description = "What a checkpoint after every epoch costs against the epoch.")
    static final class Options implements Cli.Checked {
        @Option(names = "--model", paramLabel = "lenet|resnet18", description = "the network (default lenet)")
        String model = "lenet";

        @Option(names = "--examples", paramLabel = "N", description = "random images per epoch (default 6000; 512 for ResNet-18)")
        Integer examples;

        @Option(names = "--batch", paramLabel = "N", description = "global batch (default 256)")
        int batch = 256;

        @Option(names = "--replicas", paramLabel = "K", description = "virtual replicas (default 1)")
        int replicas = 1;

        @Option(names = "--rounds", paramLabel = "N", description = "rounds, each one epoch with and one without (default 3)")
        int rounds = 3;

        @Option(names = "--dir", paramLabel = "DIR", description = "where the checkpoints go (default build/bench-checkpoints)")
        Path dir = Path.of("build/bench-checkpoints");

        @Override
        public void check() {
            Cli.oneOf("--model", model, List.of("lenet", "resnet18"));
            Cli.atLeast("--examples", examples, 1);
            Cli.atLeast("--batch", batch, 1);
            Cli.atLeast("--replicas", replicas, 1);
            Cli.atLeast("--rounds", rounds, 1);
        }
    }

    private CheckpointBench() {}

    /** Runs the benchmark and prints one table. */
    public static void main(String[] args) throws Exception {
        Options o = Cli.parseOrExit(new Options(), args);
        String model = o.model;
        int examples = o.examples != null ? o.examples : model.equals("lenet") ? 6000 : 512;
        int batch = o.batch;
        int k = o.replicas;
        int rounds = o.rounds;
        Path dir = Files.createDirectories(o.dir);
        Djl.setup();
        List<Double> plain = new ArrayList<>();
        List<Double> checkpointed = new ArrayList<>();
        List<Double> copy = new ArrayList<>();
        List<Double> write = new ArrayList<>();
        long bytes = 0;
        try (NDManager manager = NDManager.newBaseManager(Device.cpu())) {
            manager.getEngine().setRandomSeed(42);
            ArrayDataset data = new ArrayDataset.Builder()
                    .setData(manager.randomUniform(0, 1, new Shape(examples, 1, 28, 28)))
                    .optLabels(manager.randomInteger(0, 10, new Shape(examples), DataType.INT32).toType(DataType.FLOAT32, false))
                    .setSampling(batch, true).build();
            for (int r = 0; r < rounds; r++) {
                try (DataParallelTrainer t = trainer(model, k, null)) {
                    plain.add(fitSeconds(t, data));
                }
                CheckpointPolicy settings = CheckpointPolicy.in(dir.resolve("round-" + r)).resume(false);
                try (DataParallelTrainer t = trainer(model, k, settings)) {
                    checkpointed.add(fitSeconds(t, data));
                    Stateful state = t.epochs(data, null).state();
                    Checkpoint c = new Checkpoint(1);
                    long t0 = System.nanoTime();
                    state.save(c);
                    long t1 = System.nanoTime();
                    new CheckpointStore(settings.keepLast(1)).write(c);
                    long t2 = System.nanoTime();
                    copy.add((t1 - t0) / 1e9);
                    write.add((t2 - t1) / 1e9);
                    bytes = c.bytes();
                }
                new CheckpointStore(settings).clear(); // a ResNet-18 checkpoint is 90 MB
            }
        }
        double epoch = median(plain);
        System.out.printf(Locale.ROOT, "## Checkpoint cost: %s, %d replica(s), SGD with momentum, %d random images, batch %d, "
                + "%d rounds (medians)%n%n", model, k, examples, batch, rounds);
        System.out.print(new MarkdownTable().number("epoch without checkpoints (s)", 2)
                .number("epoch with a checkpoint, fit(1) incl. the write (s)", 2)
                .number("copy on the training thread (ms)", 1).number("write to disk, background (ms)", 1)
                .number("checkpoint (MB)", 1).number("copy / epoch (%)", 2).number("write / epoch (%)", 2)
                .number("fit(1) with / without", 3)
                .row(epoch, median(checkpointed), 1e3 * median(copy), 1e3 * median(write), bytes / 1e6,
                        100 * median(copy) / epoch, 100 * median(write) / epoch, median(checkpointed) / epoch));
    }

    /** The wall time of {@code fit} for one epoch (with checkpoints: until the checkpoint is on disk). */
    private static double fitSeconds(DataParallelTrainer t, ArrayDataset data) {
        long t0 = System.nanoTime();
        t.fit(data, null, 1);
        return (System.nanoTime() - t0) / 1e9;
    }

    private static double median(List<Double> values) {
        return Measurements.median(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    private static DataParallelTrainer trainer(String model, int k, CheckpointPolicy settings) {
        Block net = model.equals("lenet") ? LeNet.block() : ResNet.resnet18(10, 1);
        DataParallelTrainer.Builder b = DataParallelTrainer.builder(net).setDevices(Devices.virtual(k))
                .optInputShape(new Shape(1, 1, 28, 28)).optProgress(false)
                .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.05f)).optMomentum(0.9f).build());
        if (settings != null) {
            b.optCheckpoints(settings);
        }
        return b.build();
    }
}
