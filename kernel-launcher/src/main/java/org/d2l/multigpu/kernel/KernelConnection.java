package org.d2l.multigpu.kernel;

import java.util.HashMap;
import java.util.Map;

import org.rapaio.jupyter.kernel.channels.AbstractChannel;
import org.rapaio.jupyter.kernel.channels.Channels;
import org.rapaio.jupyter.kernel.channels.MessageHandler;
import org.rapaio.jupyter.kernel.core.ConnectionProperties;
import org.rapaio.jupyter.kernel.core.RapaioKernel;
import org.rapaio.jupyter.kernel.message.MessageType;
import org.rapaio.jupyter.kernel.message.messages.IOPubStatus;
import org.rapaio.org.zeromq.ZMQ;

/**
 * Connects rapaio's channels to Jupyter in an order without races, in place of {@code Channels.connect}:
 * the handler map is complete before any socket is polled (rapaio binds first and fills the map last, so
 * an early kernel_info_request met a null map and killed the shell thread), every polling thread is
 * checked to loop, the control socket is served by {@link ControlLoop}, and kernel_info is answered by
 * {@link KernelInfo}.
 */
final class KernelConnection {

    private KernelConnection() {
    }

    /** Binds every channel of {@code channels} for {@code kernel} and announces the kernel as starting. */
    static void open(Channels channels, RapaioKernel kernel, ConnectionProperties props) {
        PrivateFields.set(channels, "handlers", handlers(kernel, channels));
        kernel.registerChannels(channels);

        AbstractChannel heartbeat = channel(channels, "heartbeat");
        AbstractChannel shell = channel(channels, "shell");
        AbstractChannel control = channel(channels, "control");
        AbstractChannel stdin = channel(channels, "stdin");
        AbstractChannel iopub = channel(channels, "iopub");

        iopub.bind(props);
        stdin.bind(props);
        heartbeat.bind(props);
        LoopThreads.ensureLooping(heartbeat);
        ((ZMQ.Socket) PrivateFields.get(control, "socket")).bind(props.formatAddress(props.controlPort()));
        new ControlLoop(control, iopub, kernel, CellInterrupter.of(kernel)).start();
        shell.bind(props);
        LoopThreads.ensureLooping(shell);

        channels.publish(IOPubStatus.STARTING);
        PrivateFields.set(channels, "isConnected", true); // a later Channels.connect does nothing
    }

    /** rapaio's handlers for the shell channel (control messages go to {@link ControlLoop}). */
    @SuppressWarnings("rawtypes")
    private static Map<MessageType<?>, MessageHandler> handlers(RapaioKernel kernel, Channels channels) {
        Map<MessageType<?>, MessageHandler> h = new HashMap<>();
        put(h, MessageType.SHELL_EXECUTE_REQUEST, kernel::handleExecuteRequest);
        put(h, MessageType.SHELL_INSPECT_REQUEST, kernel::handleInspectRequest);
        put(h, MessageType.SHELL_COMPLETE_REQUEST, kernel::handleCompleteRequest);
        put(h, MessageType.SHELL_HISTORY_REQUEST, kernel::handleHistoryRequest);
        put(h, MessageType.SHELL_IS_COMPLETE_REQUEST, kernel::handleIsCompleteRequest);
        put(h, MessageType.SHELL_KERNEL_INFO_REQUEST, m -> KernelInfo.reply(kernel, channels, m));
        put(h, MessageType.CONTROL_SHUTDOWN_REQUEST, kernel::handleShutdownRequest);
        put(h, MessageType.CUSTOM_COMM_OPEN, kernel::handleCommOpenCommand);
        put(h, MessageType.CUSTOM_COMM_MSG, kernel::handleCommMsgCommand);
        put(h, MessageType.CUSTOM_COMM_CLOSE, kernel::handleCommCloseCommand);
        put(h, MessageType.SHELL_COMM_INFO_REQUEST, kernel::handleCommInfoRequest);
        return h;
    }

    @SuppressWarnings("rawtypes")
    private static <T> void put(Map<MessageType<?>, MessageHandler> h, MessageType<T> type, MessageHandler<T> handler) {
        h.put(type, handler);
    }

    private static AbstractChannel channel(Channels channels, String name) {
        return (AbstractChannel) PrivateFields.get(channels, name);
    }
}
