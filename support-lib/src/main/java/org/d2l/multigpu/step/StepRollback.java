package org.d2l.multigpu.step;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.devices.ReplicaStore;

/**
 * What a step that fails or is skipped must undo before the parameters are as they were: the
 * gradients its backward passes left, and the running statistics (BatchNorm's) its forward passes
 * changed, which are saved when the step starts.
 */
public final class StepRollback {

    private final List<ReplicaStore> replicas;
    private final List<Parameter> params;
    private final List<List<NDArray>> saved = new ArrayList<>();

    /** Saves the running statistics of {@code replicas}; the copies are freed with {@code step}. */
    public StepRollback(List<ReplicaStore> replicas, List<Parameter> params, NDManager step) {
        this.replicas = replicas;
        this.params = params;
        for (ReplicaStore r : replicas) {
            List<NDArray> own = new ArrayList<>();
            for (Parameter p : params) {
                if (!p.requiresGradient()) {
                    NDArray c = r.get(p.getId()).duplicate();
                    c.attach(step);
                    own.add(c);
                }
            }
            saved.add(own);
        }
    }

    /** Sets every replica's gradients to zero and puts the saved running statistics back. */
    public void undo() {
        for (ReplicaStore r : replicas) {
            for (Parameter p : params) {
                if (p.requiresGradient()) {
                    try (NDArray g = r.get(p.getId()).getGradient()) {
                        OnDevice.zero(g);
                    }
                }
            }
        }
        for (int i = 0; i < replicas.size(); i++) {
            int j = 0;
            for (Parameter p : params) {
                if (!p.requiresGradient()) {
                    OnDevice.copyInto(saved.get(i).get(j++), replicas.get(i).get(p.getId()));
                }
            }
        }
    }
}
