package org.d2l.multigpu.spark;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.d2l.multigpu.devices.OnDevice;

/**
 * Every parameter of a block (weights and running statistics) as plain float arrays, by parameter
 * name in the block's order: names are the same in every JVM that builds the same network, while
 * DJL's parameter ids are random per block.
 */
public record ParameterValues(List<String> names, List<long[]> shapes, List<float[]> values)
        implements Serializable {

    /** The current values of every parameter of {@code net}. */
    public static ParameterValues of(Block net) {
        List<String> names = new ArrayList<>();
        List<long[]> shapes = new ArrayList<>();
        List<float[]> values = new ArrayList<>();
        for (Pair<String, Parameter> p : net.getParameters()) {
            NDArray a = p.getValue().getArray();
            if (a.getDataType() != DataType.FLOAT32) {
                throw new IllegalArgumentException("Parameter " + p.getKey() + " is " + a.getDataType()
                        + "; Spark parameter averaging handles float32 networks only.");
            }
            names.add(p.getKey());
            shapes.add(a.getShape().getShape());
            values.add(a.toFloatArray());
        }
        return new ParameterValues(List.copyOf(names), List.copyOf(shapes), List.copyOf(values));
    }

    /** Writes these values into the parameters of {@code net}, which must have the same names and shapes. */
    public void loadInto(Block net) {
        var params = net.getParameters();
        if (params.size() != names.size()) {
            throw new IllegalArgumentException("The network has " + params.size() + " parameters but "
                    + names.size() + " values were sent: driver and executors must build the same network.");
        }
        for (int i = 0; i < names.size(); i++) {
            String name = params.get(i).getKey();
            NDArray dst = params.get(i).getValue().getArray();
            if (!name.equals(names.get(i)) || !dst.getShape().equals(new Shape(shapes.get(i)))) {
                throw new IllegalArgumentException("Parameter " + i + " is " + name + " " + dst.getShape()
                        + " here but " + names.get(i) + " " + new Shape(shapes.get(i))
                        + " in the values sent: driver and executors must build the same network.");
            }
            try (NDManager tmp = dst.getManager().newSubManager()) {
                OnDevice.copyInto(tmp.create(values.get(i), new Shape(shapes.get(i))), dst);
            }
        }
    }

    /** The element-wise sum of these values and {@code other} (same names and shapes). */
    public ParameterValues plus(ParameterValues other) {
        if (!names.equals(other.names)) {
            throw new IllegalArgumentException("Cannot add parameters of different networks: "
                    + names + " and " + other.names + ".");
        }
        List<float[]> sum = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            float[] a = values.get(i);
            float[] b = other.values.get(i);
            float[] c = new float[a.length];
            for (int j = 0; j < a.length; j++) {
                c[j] = a[j] + b[j];
            }
            sum.add(c);
        }
        return new ParameterValues(names, shapes, sum);
    }

    /** These values divided by {@code n}, for example a sum over n replicas turned into their mean. */
    public ParameterValues dividedBy(int n) {
        List<float[]> out = new ArrayList<>(values.size());
        for (float[] a : values) {
            float[] c = new float[a.length];
            for (int j = 0; j < a.length; j++) {
                c[j] = a[j] / n;
            }
            out.add(c);
        }
        return new ParameterValues(names, shapes, out);
    }

    /** The number of float values, over all parameters. */
    public long size() {
        return values.stream().mapToLong(v -> v.length).sum();
    }

    /** The largest absolute difference to {@code other}, element by element. */
    public double maxAbsDifference(ParameterValues other) {
        double max = 0;
        for (int i = 0; i < values.size(); i++) {
            float[] a = values.get(i);
            float[] b = other.values.get(i);
            if (a.length != b.length) {
                throw new IllegalArgumentException("Parameter " + names.get(i) + " differs in size: "
                        + a.length + " and " + b.length + ".");
            }
            for (int j = 0; j < a.length; j++) {
                max = Math.max(max, Math.abs((double) a[j] - b[j]));
            }
        }
        return max;
    }

    @Override
    public String toString() {
        return "ParameterValues[" + names.size() + " parameters, " + size() + " values, shapes "
                + shapes.stream().map(Arrays::toString).toList() + "]";
    }
}
