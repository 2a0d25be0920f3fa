package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.GradientHook;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.loop.ParameterSnapshot;
import org.d2l.multigpu.step.StepPhases;

/**
 * The float32 parameters of a trainer's k replicas, one {@link ReplicaStore} each (replica 0's are the
 * block's own arrays), as its {@link ReplicaSync} rule updates them, and what happened to them since
 * the rule last made them equal: the rounds taken and which replicas stepped. One per trainer, so a
 * rule itself holds no state and one rule object can configure any number of trainers.
 */
public final class ReplicaParameters {

    private final List<ReplicaStore> stores;
    private final List<Parameter> params;
    private final Collective collective;
    private final GradientHook hook;
    private final BitSet stepped = new BitSet();
    private int rounds;
    private StepPhases phases;

    ReplicaParameters(List<ReplicaStore> stores, List<Parameter> params, Collective collective, GradientHook hook) {
        this.stores = List.copyOf(stores);
        this.params = List.copyOf(params);
        this.collective = collective;
        this.hook = hook;
    }

    /**
     * The block's parameters in its order, checked to live on {@code home} (replica 0's device), the trained
     * ones set to record gradients.
     */
    static List<Parameter> parametersOn(Block net, Device home) {
        List<Parameter> params = new ArrayList<>();
        for (Pair<String, Parameter> p : net.getParameters()) {
            NDArray a = p.getValue().getArray();
            if (!a.getDevice().equals(home)) {
                throw new IllegalArgumentException("The block's parameter " + p.getKey() + " lives on "
                        + a.getDevice() + " but replica 0 trains on " + home + ": initialise the block on the first device.");
            }
            if (p.getValue().requiresGradient()) {
                a.setRequiresGradient(true);
            }
            params.add(p.getValue());
        }
        return params;
    }

    /** The collective through which the rule moves arrays between the replicas as they are. */
    public Collective collective() {
        return collective;
    }

    /**
     * The hook through which gradients leave the replicas in buckets, every replica taking the summed gradients
     * (as DDP's communication hook; compression plugs in here); null when the rule reduces each gradient onto
     * its parameter's owner through {@link #collective()} instead.
     */
    public GradientHook hook() {
        return hook;
    }

    /** Where the rule records when it synchronised and updated in the current step (phases SYNC and UPDATE). */
    public StepPhases phases() {
        if (phases == null) {
            phases = new StepPhases(stores.size());
        }
        return phases;
    }

    /** Records the coming step's phases in {@code step}. */
    void beginStep(StepPhases step) {
        phases = step;
    }

    /** The number of replicas. */
    public int size() {
        return stores.size();
    }

    /** Replica {@code i}'s parameter values. */
    public ReplicaStore get(int i) {
        return stores.get(i);
    }

    /** Every replica's parameter values, replica 0 first. */
    public List<ReplicaStore> stores() {
        return stores;
    }

    /** The block's parameters (trained ones and running statistics), in the block's order. */
    public List<Parameter> parameters() {
        return params;
    }

    /** The rounds (steps) taken since the replicas were last made equal. */
    public int roundsSinceSync() {
        return rounds;
    }

    /** The replicas that took a step since the replicas were last made equal, in order. */
    public List<Integer> steppedSinceSync() {
        List<Integer> list = new ArrayList<>();
        stepped.stream().forEach(list::add);
        return list;
    }

    /** A copy of replica 0's parameters (trained ones and running statistics), held by a sub-manager of {@code manager}. */
    ParameterSnapshot snapshot(NDManager manager) {
        Map<String, NDArray> current = new LinkedHashMap<>();
        for (Parameter p : params) {
            current.put(p.getId(), stores.get(0).get(p.getId()));
        }
        return ParameterSnapshot.copyOf(current, manager);
    }

    /** Writes {@code snapshot} into every replica, bit for bit. */
    void restore(ParameterSnapshot snapshot) {
        for (Parameter p : params) {
            NDArray saved = snapshot.values().get(p.getId());
            if (saved == null) {
                throw new IllegalArgumentException("The snapshot has no parameter " + p.getId()
                        + ": it was taken from another model.");
            }
            for (ReplicaStore r : stores) {
                OnDevice.copyInto(saved, r.get(p.getId()));
            }
        }
    }

    /** Records a round in which the first {@code active} replicas computed gradients. */
    void roundTaken(int active) {
        stepped.set(0, active);
        rounds++;
    }

    /** Records that the rule made every replica equal: a new period starts. */
    void synced() {
        stepped.clear();
        rounds = 0;
    }
}
