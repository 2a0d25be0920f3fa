package org.d2l.multigpu.modelparallel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.d2l.multigpu.devices.OnDevice;

/**
 * The wire from one pipeline stage to a neighbour: arrays sent arrive in order, as copies on the receiver's device
 * and outside the sender's graph (the receiver makes them leaves of its own), and the bytes sent are counted.
 */
public final class Link {

    /** How long {@link #receive()} waits before it gives up: a stage that never sends has failed. */
    public static final long TIMEOUT_SECONDS = 600;

    private final Device to;
    private final NDManager manager;
    private final BlockingQueue<NDArray> queue = new LinkedBlockingQueue<>();
    private final AtomicLong bytes = new AtomicLong();

    /** A link delivering to {@code to}, the copies it delivers attached to {@code manager}. */
    public Link(Device to, NDManager manager) {
        if (to == null || manager == null) {
            throw new IllegalArgumentException("a link needs the receiver's device and a manager for the copies it delivers");
        }
        this.to = to;
        this.manager = manager;
    }

    /** Sends a copy of {@code array}'s values, without its gradient history, to the receiver. */
    public void send(NDArray array) {
        NDArray copy;
        try (NDArray detached = array.stopGradient()) { // a view: closing it leaves array's values alone
            copy = OnDevice.copy(detached, to, manager);
        }
        bytes.addAndGet(copy.size() * copy.getDataType().getNumOfBytes());
        queue.add(copy);
    }

    /** The next array sent, waiting for it; fails when this thread is interrupted or nothing comes for {@link #TIMEOUT_SECONDS}. */
    public NDArray receive() {
        try {
            NDArray a = queue.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (a == null) {
                throw new IllegalStateException("nothing arrived on the link to " + to + " in " + TIMEOUT_SECONDS
                        + " s: the stage that sends on it has stopped (see its error) or its schedule does not send.");
            }
            return a;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting on the link to " + to, e);
        }
    }

    /** The bytes sent so far. */
    public long bytesSent() {
        return bytes.get();
    }

    /** The arrays sent and not yet received. */
    public int waiting() {
        return queue.size();
    }
}
