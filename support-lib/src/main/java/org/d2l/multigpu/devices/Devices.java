package org.d2l.multigpu.devices;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import org.d2l.multigpu.runtime.Djl;

/**
 * Picks the devices to train on: k GPUs when there are k, k replicas spread over the GPUs there are
 * when there are fewer, else k virtual replicas on the CPU. GPUs and the CPU are never mixed here: a
 * CPU replica beside a GPU takes an equal shard, so every step would wait for the CPU, many times
 * slower; a list that mixes them on purpose (d2l's exercise) can still be given to the trainer.
 */
public final class Devices {

    /** The GPU count to use instead of DJL's, for tests that simulate a GPU machine; null: ask DJL. */
    private static volatile Integer simulatedGpus;

    private Devices() {}

    /** The number of GPUs DJL sees (0 on a CPU-only machine). */
    public static int gpuCount() {
        Integer simulated = simulatedGpus;
        return simulated != null ? simulated : Djl.engine().getGpuCount();
    }

    /**
     * Makes {@link #gpuCount()} report {@code n} GPUs (null: the real count again), so that a test can
     * check what the lessons would get on a 1- or 2-GPU machine; nothing here starts a GPU.
     */
    static void simulateGpus(Integer n) {
        simulatedGpus = n;
    }

    /**
     * {@code k} devices to train on, one replica each: the first {@code k} GPUs; on a machine with
     * fewer GPUs, {@code k} replicas spread over the GPUs there are (replica i on GPU i mod n, so
     * each GPU holds one or more replicas, one after another), which it says in one printed line; on
     * a machine without GPUs the CPU {@code k} times (k virtual replicas that compute exactly what k
     * devices would).
     */
    public static List<Device> of(int k) {
        if (k < 1) {
            throw new IllegalArgumentException(
                    "The number of devices must be at least 1, got " + k + ".");
        }
        int gpus = gpuCount();
        if (gpus == 0) {
            return Collections.nCopies(k, Device.cpu());
        }
        if (k > gpus) {
            System.out.println("Asked for " + k + " devices, this machine has " + gpus + " GPU(s): " + k
                    + " replicas spread over " + (gpus == 1 ? "gpu(0)" : "gpu(0) to gpu(" + (gpus - 1) + ")")
                    + ", replicas on the same GPU running one after another.");
        }
        return spread(k, gpus);
    }

    /** {@code k} replicas over {@code gpus} GPUs: replica i on GPU i mod gpus. */
    private static List<Device> spread(int k, int gpus) {
        List<Device> list = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            list.add(Device.gpu(i % gpus));
        }
        return List.copyOf(list);
    }

    /** {@code k} virtual replicas on the CPU, whatever GPUs the machine has. */
    public static List<Device> virtual(int k) {
        if (k < 1) {
            throw new IllegalArgumentException(
                    "The number of replicas must be at least 1, got " + k + ".");
        }
        return Collections.nCopies(k, Device.cpu());
    }

    /** Throws a clear error when {@code device} does not exist on this machine. */
    public static Device check(Device device) {
        if (device.isGpu() && device.getDeviceId() >= gpuCount()) {
            int n = gpuCount();
            throw new IllegalArgumentException("Device " + device + " does not exist: this machine has "
                    + (n == 0 ? "no GPU" : n + " GPU(s), gpu(0) to gpu(" + (n - 1) + ")")
                    + ". Use Devices.of(k), which falls back to virtual replicas on the CPU.");
        }
        return device;
    }

    /**
     * Splits the examples {@code x} and labels {@code y} along the first axis over {@code devices}
     * and moves each part there: element i is (examples, labels) of device i. Sizes differ by at most
     * one (7 examples on 2 devices give 4 and 3); with fewer examples than devices only the first
     * {@code n} devices get one each.
     */
    public static List<NDList> split(NDArray x, NDArray y, List<Device> devices) {
        long n = x.getShape().get(0);
        if (devices.isEmpty()) {
            throw new IllegalArgumentException("A batch needs at least one device to be split over.");
        }
        if (y.getShape().get(0) != n) {
            throw new IllegalArgumentException("A batch of " + n + " examples has "
                    + y.getShape().get(0) + " labels; they must match.");
        }
        int k = (int) Math.min(devices.size(), n);
        long[] ends = shardEnds(n, k);
        NDList xs = x.split(ends, 0);
        NDList ys = y.split(ends, 0);
        List<NDList> parts = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
            parts.add(new NDList(xs.get(i).toDevice(devices.get(i), false), ys.get(i).toDevice(devices.get(i), false)));
        }
        return parts;
    }

    /** The split points of {@code n} examples over {@code k} parts (the first {@code n % k} parts get one more). */
    public static long[] shardEnds(long n, int k) {
        long[] ends = new long[Math.max(k - 1, 0)];
        long base = n / k;
        long extra = n % k;
        long pos = 0;
        for (int i = 0; i < k - 1; i++) {
            pos += base + (i < extra ? 1 : 0);
            ends[i] = pos;
        }
        return ends;
    }

    /** Whether the list holds a device more than once (virtual replicas sharing one device). */
    public static boolean hasVirtualReplicas(List<Device> devices) {
        return devices.stream().distinct().count() < devices.size();
    }

    /** One line saying what {@code devices} are, for a notebook's device cell. */
    public static String describe(List<Device> devices) {
        int gpus = gpuCount();
        String found = gpus == 0 ? "No GPU found" : gpus + " GPU(s) found";
        long distinct = devices.stream().distinct().count();
        if (distinct == 1 && devices.size() > 1) {
            return found + ": " + devices.size() + " virtual replicas on " + devices.get(0)
                    + " (each computes what a separate device would, one after another).";
        }
        if (distinct < devices.size()) {
            return found + ": " + devices.size() + " replicas on " + distinct + " devices (" + devices.stream()
                    .map(Device::toString).collect(Collectors.joining(", "))
                    + "); replicas that share a device run one after another.";
        }
        return found + ": training on " + devices.stream().map(Device::toString)
                .collect(Collectors.joining(", ")) + ".";
    }
}
