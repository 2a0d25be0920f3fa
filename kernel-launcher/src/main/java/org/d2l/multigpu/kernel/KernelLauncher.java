package org.d2l.multigpu.kernel;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.LogManager;

import org.rapaio.jupyter.kernel.MainApp;
import org.rapaio.jupyter.kernel.channels.Channels;
import org.rapaio.jupyter.kernel.core.ConnectionProperties;
import org.rapaio.jupyter.kernel.core.Transform;

/**
 * Runs the rapaio Jupyter kernel (the instance {@code MainApp.kernel}, which notebook code finds) in place
 * of rapaio's {@code MainApp.main}: it starts every time (see {@link KernelConnection}) and Kernel &gt;
 * Interrupt stops only the running cell (see {@link CellInterrupter}). Jupyter starts it through the
 * kernelspec that scripts/setup.sh writes: {@code java -cp d2l-kernel-launcher.jar:rapaio-jupyter-kernel.jar
 * org.d2l.multigpu.kernel.KernelLauncher CONNECTION_FILE}.
 */
public final class KernelLauncher {

    /** The rapaio-jupyter-kernel version whose internals this launcher knows. */
    public static final String RAPAIO_VERSION = "3.0.1";

    private KernelLauncher() {
    }

    /** Starts the kernel on the connection file Jupyter names and returns when it shuts down. */
    public static void main(String[] args) throws Exception {
        if (args.length != 1 || args[0].startsWith("-")) {
            System.err.println("usage: java -cp d2l-kernel-launcher.jar:rapaio-jupyter-kernel-" + RAPAIO_VERSION + ".jar "
                    + KernelLauncher.class.getName() + " CONNECTION_FILE   (Jupyter passes {connection_file})");
            System.exit(2);
        }
        Path file = Path.of(args[0]);
        if (!Files.isRegularFile(file)) {
            System.err.println("Connection file '" + file + "' is not a file: start the kernel from Jupyter, which writes it.");
            System.exit(2);
        }
        try (InputStream logging = MainApp.class.getClassLoader().getResourceAsStream("logging.properties")) {
            if (logging != null) {
                LogManager.getLogManager().readConfiguration(logging);
            }
        }
        ConnectionProperties props = Transform.fromJson(Files.readString(file), ConnectionProperties.class);
        if ("ipc".equals(props.transport())) {
            System.err.println("The ipc transport is not supported by rapaio's ZeroMQ; use tcp (Jupyter's default).");
            System.exit(2);
        }
        Channels channels = new Channels(props);
        KernelConnection.open(channels, MainApp.kernel, props);
        channels.joinUntilClose();
        System.exit(0); // idle cell threads would keep the JVM up for a minute
    }
}
