package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.d2l.multigpu.checkpoint.Checkpoint;
import org.d2l.multigpu.checkpoint.ParameterFile;
import org.d2l.multigpu.checkpoint.Stateful;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.loop.MetricsHistory;
import org.d2l.multigpu.optimizer.OptimizerCounts;
import org.d2l.multigpu.optimizer.OptimizerState;
import org.d2l.multigpu.precision.LossScale;
import org.d2l.multigpu.runtime.NoGrad;

/**
 * What a checkpoint holds of a {@link DataParallelTrainer} after an epoch, when the replicas are equal:
 * the parameters (replica 0's, in DJL's parameter file), the optimizer's state arrays on their replicas
 * (momentum, Adam's moments, each sharded owner's or parameter-averaging worker's) and update counts, the
 * loss scale, the global step count, the seed of the data order and the metrics history. Keys are
 * parameter names, since DJL's parameter ids differ in every new block.
 *
 * <p>A shuffled training set (DJL's random sampling) is read in an order drawn from the trainer's seed and
 * the epoch's number, so that a run resumed from a checkpoint reads what an unbroken run reads. A resumed
 * run ends with the parameters and history of the unbroken run bit for bit on one device and on virtual
 * replicas on the CPU (both compute one after another, in a fixed order); GPUs on worker threads only as
 * far as their kernels are deterministic.
 */
final class TrainerState implements Stateful {

    private final DataParallelTrainer t;
    private final Map<String, String> nameOfId = new HashMap<>();
    private final Map<String, String> idOfName = new HashMap<>();

    private final Map<String, String> data;

    TrainerState(DataParallelTrainer trainer, Map<String, String> data) {
        this.t = trainer;
        this.data = Map.copyOf(data);
        for (Pair<String, Parameter> p : trainer.getNet().getParameters()) {
            nameOfId.put(p.getValue().getId(), p.getKey());
            idOfName.put(p.getKey(), p.getValue().getId());
        }
    }

    @Override
    public Map<String, String> identity() {
        Map<String, String> id = new LinkedHashMap<>();
        id.put("replicas", String.valueOf(t.getDevices().size()));
        id.put("precision", t.describePrecision());
        id.put("rule", t.getSync().describe());
        id.put("optimizer", t.config.optimizer().getClass().getName());
        if (t.config.accumulate() > 1) { // only when set, so that checkpoints written before these settings still resume
            id.put("micro-batches per step", String.valueOf(t.config.accumulate()));
        }
        if (t.syncBatchNorm()) {
            id.put("BatchNorm statistics", "synchronised over the replicas");
        }
        if (t.compression != null) {
            id.put("compression", t.compression.compressor().describe());
        }
        id.putAll(new java.util.TreeMap<>(data));
        for (Pair<String, Parameter> p : t.getNet().getParameters()) {
            NDArray a = p.getValue().getArray();
            id.put("parameter " + p.getKey(), a.getShape() + " " + a.getDataType());
        }
        return id;
    }

    @Override
    public void save(Checkpoint out) {
        Block net = t.getNet();
        out.put("parameters.params", ParameterFile.of(net));
        Map<String, NDArray> state = new LinkedHashMap<>();
        OptimizerState.of(t.config.optimizer()).forEach((kind, key, device, value) ->
                state.put(kind + "|" + replicaOf(device) + "|" + rename(key, nameOfId), value));
        out.put("optimizer.ndlist", ParameterFile.encode(state));
        Map<String, String> props = new LinkedHashMap<>();
        props.put("steps", String.valueOf(t.getSteps()));
        props.put("shuffleSeed", String.valueOf(t.shuffleSeed()));
        LossScale scale = t.getLossScale();
        if (scale != null) {
            props.put("lossScale", Float.toHexString(scale.scale()));
            props.put("lossScaleGoodSteps", String.valueOf(scale.goodSteps()));
            props.put("lossScaleSkipped", String.valueOf(scale.skippedSteps()));
        }
        props.putAll(OptimizerCounts.of(t.config.optimizer(), k -> rename(k, nameOfId)));
        out.putText("trainer.properties", props);
        if (t.compression != null) {
            t.compression.state().save(out, id -> rename(id, nameOfId)); // by parameter names
        }
        out.put("history.csv", MetricsHistory.encode(t.getHistory()));
    }

    @Override
    public void load(Checkpoint in) {
        Map<String, String> props = in.text("trainer.properties");
        try (NoGrad g = NoGrad.scope(); NDManager tmp = t.manager.newSubManager()) {
            Map<String, NDArray> values = ParameterFile.read(t.getNet(), in.get("parameters.params"), tmp);
            for (ReplicaStore r : t.masters.stores()) {
                for (Parameter p : t.masters.parameters()) {
                    NDArray dst = r.get(p.getId());
                    NDArray v = values.get(nameOfId.get(p.getId())).toType(dst.getDataType(), false);
                    v.attach(tmp);
                    org.d2l.multigpu.devices.OnDevice.copyInto(v, dst);
                }
            }
            t.precision.mastersChanged(tmp);
            OptimizerState state = OptimizerState.of(t.config.optimizer());
            state.clear();
            List<Device> devices = t.getDevices();
            ParameterFile.decode(in.get("optimizer.ndlist"), tmp).forEach((name, value) -> {
                String[] f = name.split("\\|", 3);
                state.set(Integer.parseInt(f[0]), rename(f[2], idOfName), devices.get(Integer.parseInt(f[1])), value);
            });
        }
        OptimizerCounts.load(t.config.optimizer(), props, k -> rename(k, idOfName));
        if (t.compression != null) {
            t.compression.state().load(in, name -> rename(name, idOfName));
        }
        LossScale scale = t.getLossScale();
        if (scale != null) {
            scale.restore(Float.parseFloat(props.get("lossScale")), Integer.parseInt(props.get("lossScaleGoodSteps")),
                    Long.parseLong(props.get("lossScaleSkipped")));
        }
        // the finished epochs, the global steps and the data order's seed
        t.resumeRun(MetricsHistory.decode(in.get("history.csv")), Long.parseLong(props.get("steps")),
                Long.parseLong(props.get("shuffleSeed")));
    }

    /** The first replica on {@code device}, where optimizer state kept for that device belongs. */
    private int replicaOf(Device device) {
        int i = t.getDevices().indexOf(device);
        if (i < 0) {
            throw new IllegalStateException("The optimizer keeps state on " + device + ", which no replica uses.");
        }
        return i;
    }

    /** A state key (a parameter's id or name, with parameter averaging's {@code @worker} suffix) renamed by {@code map}. */
    private static String rename(String key, Map<String, String> map) {
        int at = key.indexOf('@');
        String head = at < 0 ? key : key.substring(0, at);
        String renamed = map.get(head);
        if (renamed == null) {
            throw new IllegalStateException("The optimizer state key " + key + " names no parameter of this network.");
        }
        return at < 0 ? renamed : renamed + key.substring(at);
    }
}
