package org.d2l.multigpu.spark.driver;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.d2l.multigpu.checkpoint.Checkpoint;
import org.d2l.multigpu.checkpoint.ParameterFile;
import org.d2l.multigpu.checkpoint.Stateful;
import org.d2l.multigpu.compression.CompressionState;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.loop.MetricsHistory;
import org.d2l.multigpu.spark.CompressionValues;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ParameterValues;

/**
 * What a checkpoint holds of a Spark trainer, all of it on the driver: the parameters of the last
 * complete epoch (DJL's parameter file), the optimizer state (and the compressors' state) that the next
 * epoch's tasks start from, the trainer's counters (rounds or steps, from which each task's update count follows) and the metrics
 * history. What the executors keep between epochs (their residuals when compressing) they report to the
 * driver after each epoch, so nothing needs to be read from them.
 */
final class DriverState implements Stateful {

    private final Block net;
    private final OptimizerFactory optimizer;
    private final Map<String, String> rule;
    private final boolean compressed;
    private final DriverProgress progress;
    private final String counter;
    private final long trainExamples;
    private final long testExamples;

    /**
     * The state of a run of {@code net} with {@code optimizer} under {@code rule} (the settings a resumed run
     * must share, e.g. partitions), whose {@code progress} counts {@code counter} (e.g. "rounds"), on
     * {@code trainExamples} training and {@code testExamples} test examples; {@code compressed}: with the
     * ranks' compressor state.
     */
    DriverState(Block net, OptimizerFactory optimizer, Map<String, String> rule, boolean compressed,
            DriverProgress progress, String counter, long trainExamples, long testExamples) {
        this.net = net;
        this.optimizer = optimizer;
        this.rule = rule;
        this.compressed = compressed;
        this.progress = progress;
        this.counter = counter;
        this.trainExamples = trainExamples;
        this.testExamples = testExamples;
    }

    @Override
    public Map<String, String> identity() {
        Map<String, String> id = new LinkedHashMap<>(rule);
        id.put("precision", "FLOAT32");
        id.put("optimizer", optimizer.newOptimizer().getClass().getName()); // a lambda factory has no stable name
        for (Pair<String, Parameter> p : net.getParameters()) {
            NDArray a = p.getValue().getArray();
            id.put("parameter " + p.getKey(), a.getShape() + " " + a.getDataType());
        }
        id.put("training examples", String.valueOf(trainExamples));
        id.put("test examples", String.valueOf(testExamples));
        return id;
    }

    @Override
    public void save(Checkpoint out) {
        out.put("parameters.params", ParameterFile.of(net));
        ParameterValues state = progress.optimizerState();
        try (NDManager tmp = NDManager.newBaseManager(Device.cpu())) {
            Map<String, NDArray> arrays = new LinkedHashMap<>();
            for (int i = 0; state != null && i < state.names().size(); i++) {
                arrays.put(i + "|" + state.names().get(i), tmp.create(state.values().get(i), new Shape(state.shapes().get(i))));
            }
            out.put("optimizer.ndlist", ParameterFile.encode(arrays));
        }
        if (compressed) { // by parameter names, which every JVM shares, as the in-process trainer writes it
            CompressionState c = new CompressionState();
            progress.compression().loadInto(c);
            c.save(out, UnaryOperator.identity());
        }
        out.putText("trainer.properties", Map.of(counter, String.valueOf(progress.count()),
                "epochs", String.valueOf(progress.history().size())));
        out.put("history.csv", MetricsHistory.encode(progress.history()));
    }

    @Override
    public void load(Checkpoint in) {
        Map<String, String> counters = in.text("trainer.properties");
        try (NDManager tmp = NDManager.newBaseManager(Device.cpu())) {
            Map<String, NDArray> values = ParameterFile.read(net, in.get("parameters.params"), tmp);
            for (Pair<String, Parameter> p : net.getParameters()) {
                OnDevice.copyInto(values.get(p.getKey()), p.getValue().getArray());
            }
            List<String> names = new ArrayList<>();
            List<long[]> shapes = new ArrayList<>();
            List<float[]> state = new ArrayList<>();
            ParameterFile.decode(in.get("optimizer.ndlist"), tmp).forEach((key, a) -> {
                names.add(key.substring(key.indexOf('|') + 1));
                shapes.add(a.getShape().getShape());
                state.add(a.toFloatArray());
            });
            progress.restore(names.isEmpty() ? null : new ParameterValues(names, shapes, state),
                    MetricsHistory.decode(in.get("history.csv")), Integer.parseInt(counters.get(counter)));
            if (compressed) {
                CompressionState c = new CompressionState();
                c.load(in, UnaryOperator.identity());
                progress.compression(CompressionValues.of(c));
            }
        }
    }

}
