package org.d2l.multigpu.spark;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.d2l.multigpu.checkpoint.Checkpoint;
import org.d2l.multigpu.checkpoint.CheckpointPart;
import org.d2l.multigpu.checkpoint.ParameterFile;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.parallel.MetricsHistory;

/**
 * What a checkpoint holds of a {@link SparkTrainer}, all of it on the driver: the averaged parameters
 * (DJL's parameter file), the averaged optimizer state that the next round broadcasts, the epochs and
 * rounds so far (each partition's update count follows from them) and the metrics history. The
 * executors keep nothing between rounds, so nothing of theirs is needed.
 */
final class SparkState implements CheckpointPart {

    private final SparkTrainer spark;

    SparkState(SparkTrainer spark) {
        this.spark = spark;
    }

    @Override
    public Map<String, String> identity() {
        Map<String, String> id = new LinkedHashMap<>();
        id.put("partitions", String.valueOf(spark.getPartitions()));
        id.put("averaging frequency", String.valueOf(spark.getAveragingFrequency()));
        id.put("precision", "FLOAT32");
        id.put("optimizer", spark.optimizerFactory().newOptimizer().getClass().getName()); // a lambda factory has no stable name
        for (Pair<String, Parameter> p : spark.getNet().getParameters()) {
            NDArray a = p.getValue().getArray();
            id.put("parameter " + p.getKey(), a.getShape() + " " + a.getDataType());
        }
        return id;
    }

    @Override
    public void save(Checkpoint out) {
        out.put("parameters.params", ParameterFile.of(spark.getNet()));
        ParameterValues state = spark.optimizerState();
        try (NDManager tmp = NDManager.newBaseManager(Device.cpu())) {
            Map<String, NDArray> arrays = new LinkedHashMap<>();
            for (int i = 0; state != null && i < state.names().size(); i++) {
                arrays.put(i + "|" + state.names().get(i), tmp.create(state.values().get(i), new Shape(state.shapes().get(i))));
            }
            out.put("optimizer.ndlist", ParameterFile.encode(arrays));
        }
        out.putText("trainer.properties", Map.of("epochs", String.valueOf(spark.getHistory().size()),
                "rounds", String.valueOf(spark.getRounds().size())));
        out.put("history.csv", MetricsHistory.encode(spark.getHistory()));
    }

    @Override
    public void load(Checkpoint in) {
        Map<String, String> props = in.text("trainer.properties");
        try (NDManager tmp = NDManager.newBaseManager(Device.cpu())) {
            Map<String, NDArray> values = ParameterFile.read(spark.getNet(), in.get("parameters.params"), tmp);
            for (Pair<String, Parameter> p : spark.getNet().getParameters()) {
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
            spark.restoreProgress(names.isEmpty() ? null : new ParameterValues(names, shapes, state),
                    MetricsHistory.decode(in.get("history.csv")), Integer.parseInt(props.get("rounds")));
        }
    }
}
