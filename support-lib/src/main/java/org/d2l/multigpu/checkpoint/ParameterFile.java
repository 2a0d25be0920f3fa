package org.d2l.multigpu.checkpoint;

import ai.djl.MalformedModelException;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.d2l.multigpu.runtime.DjlFields;

/**
 * A block's parameters in DJL's own parameter file format ({@link Block#saveParameters}, read back by
 * {@link Block#loadParameters}), and named arrays in DJL's {@link NDList} encoding.
 */
public final class ParameterFile {

    private ParameterFile() {}

    /** {@code net}'s parameters (trained ones and running statistics) as DJL writes them with {@code saveParameters}. */
    public static byte[] of(Block net) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            net.saveParameters(out);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    /**
     * The values of a parameter file of {@code net}'s kind, by parameter name (the keys of
     * {@code net.getParameters()}), as arrays held by {@code manager}; {@code net} keeps its own arrays.
     * DJL's {@code loadParameters} puts new arrays into the parameters; the block's arrays, which the
     * trainer's replicas and gradients refer to, are put back.
     */
    public static Map<String, NDArray> read(Block net, byte[] file, NDManager manager) {
        List<Pair<String, Parameter>> params = net.getParameters().stream().toList();
        List<NDArray> own = new ArrayList<>();
        params.forEach(p -> own.add(p.getValue().getArray()));
        Map<String, NDArray> values = new LinkedHashMap<>();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(file))) {
            net.loadParameters(manager, in);
            for (Pair<String, Parameter> p : params) {
                values.put(p.getKey(), p.getValue().getArray());
            }
        } catch (IOException | MalformedModelException | RuntimeException ex) {
            throw new IllegalStateException("The parameter file does not fit this network: " + ex.getMessage(), ex);
        } finally {
            for (int i = 0; i < params.size(); i++) {
                putBack(params.get(i).getValue(), own.get(i));
            }
        }
        return values;
    }

    /** Named arrays in DJL's NDList encoding (each array's name is its key); no bytes for none. */
    public static byte[] encode(Map<String, NDArray> arrays) {
        if (arrays.isEmpty()) {
            return new byte[0]; // DJL cannot decode the encoding of an empty list
        }
        NDList list = new NDList();
        arrays.forEach((name, a) -> {
            NDArray copy = a.duplicate();
            copy.setName(name);
            list.add(copy);
        });
        try {
            return list.encode();
        } finally {
            list.close();
        }
    }

    /** The named arrays of {@link #encode}'s bytes, held by {@code manager}. */
    public static Map<String, NDArray> decode(byte[] bytes, NDManager manager) {
        Map<String, NDArray> arrays = new LinkedHashMap<>();
        if (bytes.length == 0) {
            return arrays;
        }
        for (NDArray a : NDList.decode(manager, bytes)) {
            arrays.put(a.getName(), a);
        }
        return arrays;
    }

    private static void putBack(Parameter p, NDArray array) {
        DjlFields.set(Parameter.class, "array", p, array, "putting parameter " + p.getName()
                + "'s array back after reading a parameter file");
    }
}
