package org.d2l.multigpu.bench;

import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.bench.harness.Cli;
import org.d2l.multigpu.models.ResNet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The options of {@link Bench}: which suite and model, the measuring settings (defaults by model:
 * ResNet-18 takes fewer, smaller steps) and, for a child run, the configuration it measures.
 */
@Command(name = "Bench", description = "Examples per second of the data-parallel trainer against DJL's Trainer "
        + "(or PyTorch), each configuration in its own JVM, interleaved round by round.")
final class BenchOptions implements Cli.Checked {

    static final List<String> SUITES = List.of("trainers", "averaging", "precision", "gpu", "peer", "isa", "largebatch");
    static final String MODELS = "lenet, lenet-sigmoid, dl4j, resnet18 or resnet18-wN (N the first stage's width)";

    @Option(names = "--suite", paramLabel = "SUITE", description = "trainers (default), averaging, precision, gpu, peer, isa or largebatch")
    String suite = "trainers";

    @Option(names = "--model", paramLabel = "MODEL", description = "lenet (default), lenet-sigmoid, dl4j, resnet18 or resnet18-wN")
    String model = "lenet";

    @Option(names = "--device", paramLabel = "cpu|gpu", description = "where the Java runs train (default: gpu for the gpu suite, else cpu)")
    String device;

    @Option(names = "--data", paramLabel = "fashion|random", description = "Fashion-MNIST (default) or random images")
    String data = "fashion";

    @Option(names = "--batch", paramLabel = "N", description = "global batch (default 256; 128 for ResNet-18)")
    Integer batch;

    @Option(names = "--steps", paramLabel = "N", description = "timed steps (default 30; 4 for ResNet-18)")
    Integer steps;

    @Option(names = "--warmup", paramLabel = "N", description = "warm-up steps (default 5; 1 for ResNet-18)")
    Integer warmup;

    @Option(names = "--rounds", paramLabel = "N", description = "interleaved rounds (default 3)")
    int rounds = 3;

    @Option(names = "--limit", paramLabel = "N", description = "DATASET_LIMIT, examples loaded (default 4 batches)")
    Integer limit;

    @Option(names = "--threads", paramLabel = "N", description = "PyTorch intra-op threads of every run (peer suite: 2)")
    Integer threads;

    @Option(names = "--python", paramLabel = "PATH", description = "a python3 with torch, for the PyTorch run of the peer and gpu suites")
    String python;

    @Option(names = "--child", hidden = true, description = "measures this configuration in this JVM")
    String child;

    @Override
    public void check() {
        Cli.oneOf("--suite", suite, SUITES);
        Cli.oneOf("--data", data, List.of("fashion", "random"));
        if (device != null) {
            Cli.oneOf("--device", device, List.of("cpu", "gpu"));
        }
        if (!model.matches("lenet|lenet-sigmoid|dl4j|resnet18(-w[1-9][0-9]*)?")) {
            throw new IllegalArgumentException("--model: unknown model '" + model + "'; use " + MODELS);
        }
        Cli.atLeast("--batch", batch, 1);
        Cli.atLeast("--steps", steps, 1);
        Cli.atLeast("--warmup", warmup, 0);
        Cli.atLeast("--rounds", rounds, 1);
        Cli.atLeast("--limit", limit, 1);
        Cli.atLeast("--threads", threads, 1);
    }

    /** Fills the settings left out with their defaults for this model and suite, and returns this. */
    BenchOptions withDefaults() {
        boolean resnet = model.startsWith("resnet18");
        batch = batch != null ? batch : resnet ? 128 : 256;
        steps = steps != null ? steps : resnet ? 4 : 30;
        warmup = warmup != null ? warmup : resnet ? 1 : 5;
        limit = limit != null ? limit : batch * 4;
        device = device != null ? device : suite.equals("gpu") ? "gpu" : "cpu";
        threads = threads != null || !suite.equals("peer") ? threads : Integer.valueOf(2);
        return this;
    }

    /** The configurations this suite measures, the reference (the ratios' denominator) first. */
    List<String> configs() {
        switch (suite) {
            case "averaging":
                return List.of("ga2", "pa2f1", "pa2f3");
            case "precision":
                return List.of("fp32", "fp16");
            case "gpu":
                // PyTorch on the same GPU first when a python with torch is given: the ratios are then to it
                return python == null ? List.of("djl", "dp1", "dp2") : List.of("torch", "djl", "dp1", "dp2");
            case "largebatch":
                // 2 replicas: plain BatchNorm (the reference), synchronised BatchNorm, 4 micro-batches per step
                return List.of("dp2", "dp2-sync", "dp2-acc4");
            case "isa":
                // oneDNN at its default instruction set against the caps the CPU check may choose
                return List.of("dp1", "dp1-AVX2", "dp1-AVX", "dp1-SSE41");
            case "peer":
                // PyTorch in Python (when a python is given), the trainer with 1 replica, DJL's Trainer, DJL's
                // Trainer computing the training loss and accuracy as the trainer does, and the trainer without
                // NativeMemory's settings (glibc's defaults, what every run did before)
                List<String> peer = new ArrayList<>(List.of("torch", "dp1", "djl", "djl-metrics", "dp1-glibc"));
                return python == null ? peer.subList(1, peer.size()) : peer;
            default:
                return List.of("djl", "dp1", "dp2", "dp4");
        }
    }

    /** The options a child run of {@code config} gets: where to run, what data and the measuring settings. */
    List<String> childArgs(String config) {
        return List.of("--child", config, "--device", device, "--data", data, "--model", model,
                "--batch", String.valueOf(batch), "--steps", String.valueOf(steps), "--warmup", String.valueOf(warmup),
                "--limit", String.valueOf(limit));
    }

    /** The oneDNN instruction-set cap of an isa-suite configuration ({@code dp1-SSE41}: SSE41), or null. */
    static String isaCap(String config) {
        return config.matches("dp1-(AVX512_CORE|AVX2|AVX|SSE41)") ? config.substring(4) : null;
    }

    boolean gpu() {
        return "gpu".equals(device);
    }

    /** The first stage's width of a model named resnet18 (the book's 64) or resnet18-wN. */
    int resnetWidth() {
        return model.contains("-w") ? Integer.parseInt(model.substring(model.indexOf("-w") + 2)) : ResNet.BOOK_WIDTH;
    }
}
