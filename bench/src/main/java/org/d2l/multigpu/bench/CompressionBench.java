package org.d2l.multigpu.bench;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.d2l.multigpu.bench.harness.Cli;
import org.d2l.multigpu.bench.harness.MarkdownTable;
import org.d2l.multigpu.bench.harness.Measurements;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.models.ResNet;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.runtime.Djl;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What gradient compression costs and saves per step: the trainer on 2 virtual replicas, uncompressed and
 * with each compressor (error feedback on), an epoch of a few steps each, interleaved round by round on the
 * same random images; the median step time, the time compression adds to it (encoding, decoding and the
 * copies between the replicas' arrays and the host), and the bytes per step as the collective counted them.
 */
public final class CompressionBench {

    /** The command line of {@link CompressionBench}. */
    @Command(name = "CompressionBench", description = "Step time and bytes per step of each gradient compressor.")
    static final class Options implements Cli.Checked {
        @Option(names = "--model", paramLabel = "lenet|resnet18-w16", description = "the network (default lenet)")
        String model = "lenet";

        @Option(names = "--batch", paramLabel = "N", description = "global batch (default 256)")
        int batch = 256;

        @Option(names = "--steps", paramLabel = "N", description = "steps per epoch, one epoch per configuration and round (default 10)")
        int steps = 10;

        @Option(names = "--rounds", paramLabel = "N", description = "rounds (default 3)")
        int rounds = 3;

        @Override
        public void check() {
            Cli.oneOf("--model", model, List.of("lenet", "resnet18-w16"));
            Cli.atLeast("--batch", batch, 2);
            Cli.atLeast("--steps", steps, 1);
            Cli.atLeast("--rounds", rounds, 1);
        }
    }

    private CompressionBench() {}

    /** Runs the benchmark and prints one table. */
    public static void main(String[] args) throws Exception {
        Options o = Cli.parseOrExit(new Options(), args);
        Djl.setup();
        Map<String, Supplier<Compressor>> configs = new LinkedHashMap<>();
        configs.put("uncompressed", () -> null);
        configs.put("float16", () -> Compressor.float16(true));
        configs.put("1-bit", () -> Compressor.oneBit(true));
        configs.put("threshold 1e-3", () -> Compressor.threshold(1e-3, true));
        configs.put("PowerSGD r=2", () -> Compressor.powerSgd(2, 0, true));
        Map<String, List<Double>> stepSeconds = new LinkedHashMap<>();
        Map<String, Long> bytes = new LinkedHashMap<>();
        configs.keySet().forEach(c -> stepSeconds.put(c, new ArrayList<>()));
        try (NDManager manager = NDManager.newBaseManager(Device.cpu())) {
            manager.getEngine().setRandomSeed(42);
            int examples = o.batch * o.steps;
            ArrayDataset data = new ArrayDataset.Builder()
                    .setData(manager.randomUniform(0, 1, new Shape(examples, 1, 28, 28)))
                    .optLabels(manager.randomInteger(0, 10, new Shape(examples), DataType.INT32).toType(DataType.FLOAT32, false))
                    .setSampling(o.batch, false).build();
            for (int r = 0; r < o.rounds; r++) {
                for (var c : configs.entrySet()) {
                    try (DataParallelTrainer t = trainer(o.model, c.getValue().get())) {
                        EpochMetrics m = t.trainEpoch(data, null);
                        stepSeconds.get(c.getKey()).add(m.medianStepSeconds());
                        bytes.put(c.getKey(), m.syncBytes() / m.steps());
                    }
                }
            }
        }
        double plain = median(stepSeconds.get("uncompressed"));
        long plainBytes = bytes.get("uncompressed");
        System.out.printf(Locale.ROOT, "## Gradient compression: %s, 2 virtual replicas, batch %d, %d steps per epoch, "
                + "%d rounds (medians of the epochs' median step)%n%n", o.model, o.batch, o.steps, o.rounds);
        MarkdownTable table = new MarkdownTable().text("scheme").number("ms per step", 1).number("compression (ms)", 1)
                .number("bytes per step, both replicas", 0).number("fewer bytes", 1)
                .number("break-even link (Gbit/s)", 2);
        for (String c : configs.keySet()) {
            double s = median(stepSeconds.get(c));
            double extra = s - plain;
            long b = bytes.get(c);
            // the link speed at which a replica's bytes saved (the replicas send at once, each on its own link)
            // take as long as compressing costs; none where compressing cost nothing measurable
            double breakEven = c.equals("uncompressed") || extra <= 0 ? Double.NaN : (plainBytes - b) / 2.0 * 8 / extra / 1e9;
            table.row(c, 1e3 * s, 1e3 * extra, (double) b, plainBytes / (double) b, breakEven);
        }
        System.out.print(table);
    }

    private static double median(List<Double> values) {
        return Measurements.median(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    private static DataParallelTrainer trainer(String model, Compressor compressor) {
        Block net = model.equals("lenet") ? LeNet.block() : ResNet.resnet18(10, 1, 16);
        return DataParallelTrainer.builder(net).setDevices(Devices.virtual(2))
                .optInputShape(new Shape(1, 1, 28, 28)).optProgress(false).optCompression(compressor)
                .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.05f)).optMomentum(0.9f).build())
                .build();
    }
}
