package org.d2l.multigpu.devices;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import ai.djl.util.Pair;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One model replica's parameter values: a {@link ParameterStore} that hands every block the
 * replica's own arrays, so that several replicas of one block can live on one device.
 */
public class ReplicaStore extends ParameterStore {

    private final Device device;
    private final Map<String, NDArray> values;

    private ReplicaStore(NDManager manager, Device device, Map<String, NDArray> values) {
        super(manager, false);
        this.device = device;
        this.values = values;
    }

    /** The block's own parameter arrays (the replica that optimizers update). */
    public static ReplicaStore of(Block net, NDManager manager) {
        Map<String, NDArray> values = new LinkedHashMap<>();
        for (Pair<String, Parameter> p : net.getParameters()) {
            values.put(p.getValue().getId(), p.getValue().getArray());
        }
        Device d = values.isEmpty() ? manager.getDevice() : values.values().iterator().next().getDevice();
        return new ReplicaStore(manager, d, values);
    }

    /**
     * A copy of the block's parameters on {@code device}, attached to {@code manager}, with gradients
     * where the parameter is trained when {@code withGradients} is true.
     */
    public static ReplicaStore copyOf(Block net, Device device, NDManager manager, boolean withGradients) {
        return copyOf(net, device, manager, withGradients, (DataType) null);
    }

    /** The same, cast to {@code type} (kept as it is when {@code type} is null). */
    public static ReplicaStore copyOf(Block net, Device device, NDManager manager, boolean withGradients,
            DataType type) {
        return copyOf(net, device, manager, withGradients, p -> type);
    }

    /** The same, each parameter cast to {@code typeOf.apply(parameter)} (kept as it is where that is null). */
    public static ReplicaStore copyOf(Block net, Device device, NDManager manager, boolean withGradients,
            Function<Parameter, DataType> typeOf) {
        Map<String, NDArray> values = new LinkedHashMap<>();
        for (Pair<String, Parameter> p : net.getParameters()) {
            Parameter param = p.getValue();
            NDArray copy = OnDevice.copy(param.getArray(), device, manager);
            DataType type = typeOf.apply(param);
            if (type != null && copy.getDataType() != type) {
                NDArray cast = OnDevice.cast(copy, type, manager);
                copy.close();
                copy = cast;
            }
            if (withGradients && param.requiresGradient()) {
                copy.setRequiresGradient(true);
            }
            values.put(param.getId(), copy);
        }
        return new ReplicaStore(manager, device, values);
    }

    /**
     * One store per device for replicas that train, held by {@code manager}: on the first device the
     * block's own arrays when {@code typeOf} keeps every parameter's type, copies with gradients
     * everywhere else, each parameter cast to {@code typeOf.apply(parameter)} (kept where that is null).
     */
    public static List<ReplicaStore> replicas(Block net, List<Device> devices, NDManager manager,
            Function<Parameter, DataType> typeOf) {
        boolean ownFirst = true;
        for (Pair<String, Parameter> p : net.getParameters()) {
            DataType t = typeOf.apply(p.getValue());
            ownFirst &= t == null || t == p.getValue().getArray().getDataType();
        }
        List<ReplicaStore> stores = new ArrayList<>();
        for (int i = 0; i < devices.size(); i++) {
            stores.add(i == 0 && ownFirst ? of(net, manager) : copyOf(net, devices.get(i), manager, true, typeOf));
        }
        return List.copyOf(stores);
    }

    /** The device this replica's arrays live on. */
    public Device device() {
        return device;
    }

    /** This replica's array for the parameter with id {@code parameterId}. */
    public NDArray get(String parameterId) {
        NDArray a = values.get(parameterId);
        if (a == null) {
            throw new IllegalArgumentException("This replica has no parameter with id " + parameterId
                    + ": was the block changed after the replicas were made?");
        }
        return a;
    }

    @Override
    public NDArray getValue(Parameter parameter, Device device, boolean training) {
        return parameter == null ? null : get(parameter.getId());
    }
}
