package org.d2l.multigpu.optimizer;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.ParameterTracker;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.d2l.multigpu.runtime.NoGrad;

/**
 * SGD with Nesterov momentum, computed with NDArray operations in the weights' own data type, for
 * engines without DJL's {@code Optimizer.nag()} (the PyTorch engine leaves {@code nagUpdate}
 * unimplemented). Per weight, with g the gradient times {@code rescaleGrad}, clipped to
 * {@code clipGrad} when set, plus {@code weightDecay} times the weight, and v the velocity (zero at
 * first): {@code v = momentum * v + g}, then {@code w = w - lr * (g + momentum * v)}. This is
 * PyTorch's {@code SGD(nesterov=True)} and, for a fixed learning rate, Deeplearning4j's
 * {@code Nesterovs} updater. The velocity is kept as DJL's optimizers keep their state (per
 * parameter and device), so the trainer can average it, shard it and count its bytes.
 */
public final class Nesterov extends Optimizer {

    private final ParameterTracker learningRateTracker;
    private final float momentum;
    private final Map<String, Map<Device, NDArray>> velocities = new ConcurrentHashMap<>();

    private Nesterov(Builder builder) {
        super(builder);
        learningRateTracker = builder.learningRateTracker;
        momentum = builder.momentum;
    }

    /** Starts a builder, e.g. {@code Nesterov.builder().setLearningRateTracker(Tracker.fixed(0.01f)).setMomentum(0.9f).build()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Updates {@code weight} in place from {@code grad}, as the class comment says, in the weight's data type. */
    @Override
    public void update(String parameterId, NDArray weight, NDArray grad) {
        float lr = learningRateTracker.getNewValue(parameterId, updateCount(parameterId));
        float weightDecay = getWeightDecay();
        NDArray velocity = withDefaultState(velocities, parameterId, weight.getDevice(), k -> weight.zerosLike());
        try (NoGrad off = NoGrad.scope(); NDManager tmp = NDManager.subManagerOf(weight)) {
            tmp.tempAttachAll(weight, grad, velocity); // what the update makes on the way is freed with tmp
            NDArray g = grad.mul(rescaleGrad);
            if (clipGrad > 0) {
                g = g.clip(-clipGrad, clipGrad);
            }
            if (weightDecay != 0) {
                g = g.add(weight.mul(weightDecay));
            }
            velocity.muli(momentum).addi(g);
            weight.subi(g.add(velocity.mul(momentum)).mul(lr));
        }
    }

    /** The builder of a {@link Nesterov} optimizer, as DJL's optimizers are built. */
    public static final class Builder extends OptimizerBuilder<Builder> {

        private ParameterTracker learningRateTracker;
        private float momentum;

        private Builder() {}

        @Override
        protected Builder self() {
            return this;
        }

        /** The learning rate, e.g. {@code Tracker.fixed(0.01f)}. */
        public Builder setLearningRateTracker(ParameterTracker learningRateTracker) {
            this.learningRateTracker = learningRateTracker;
            return this;
        }

        /** The momentum, e.g. 0.9 (Deeplearning4j's default for {@code Nesterovs}). */
        public Builder setMomentum(float momentum) {
            this.momentum = momentum;
            return this;
        }

        /** Builds the optimizer; a missing learning rate or a momentum outside (0, 1) is an error that says so. */
        public Nesterov build() {
            if (learningRateTracker == null) {
                throw new IllegalArgumentException("Nesterov needs a learning rate: call setLearningRateTracker("
                        + "Tracker.fixed(0.01f)) on the builder.");
            }
            if (!(momentum > 0 && momentum < 1)) {
                throw new IllegalArgumentException("Nesterov momentum must lie between 0 and 1 (e.g. 0.9), got "
                        + momentum + "; without momentum use Optimizer.sgd().");
            }
            return new Nesterov(this);
        }
    }
}
