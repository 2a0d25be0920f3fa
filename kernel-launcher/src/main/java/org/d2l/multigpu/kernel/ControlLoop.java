package org.d2l.multigpu.kernel;

import java.util.logging.Logger;

import org.rapaio.jupyter.kernel.channels.AbstractChannel;
import org.rapaio.jupyter.kernel.core.RapaioKernel;
import org.rapaio.jupyter.kernel.message.Message;
import org.rapaio.jupyter.kernel.message.MessageType;
import org.rapaio.jupyter.kernel.message.messages.ControlInterruptReply;
import org.rapaio.jupyter.kernel.message.messages.ControlShutdownReply;
import org.rapaio.jupyter.kernel.message.messages.ControlShutdownRequest;
import org.rapaio.jupyter.kernel.message.messages.IOPubStatus;

/**
 * The kernel's control channel: answers interrupt and shutdown requests on the control socket itself.
 * rapaio's control loop shares the shell's message id and its stack of after-actions, so an interrupt
 * there ran the busy cell's clean-up (output unbound, reply sent to nobody) while the cell still ran.
 */
final class ControlLoop extends Thread {

    private static final Logger LOG = Logger.getLogger(ControlLoop.class.getSimpleName());

    private final AbstractChannel control;
    private final AbstractChannel iopub;
    private final RapaioKernel kernel;
    private final CellInterrupter interrupter;

    ControlLoop(AbstractChannel control, AbstractChannel iopub, RapaioKernel kernel, CellInterrupter interrupter) {
        super("d2l-control");
        setDaemon(true);
        this.control = control;
        this.iopub = iopub;
        this.kernel = kernel;
        this.interrupter = interrupter;
    }

    @Override
    public void run() {
        while (true) {
            Message<?> request;
            try {
                request = control.readMessage();
            } catch (RuntimeException ex) { // a message with a bad signature, or the socket closed under us
                LOG.warning("Control message not read: " + ex);
                continue;
            }
            if (request == null) {
                return; // socket closed
            }
            MessageType<?> type = request.header().type();
            status(request, IOPubStatus.BUSY);
            try {
                if (type == MessageType.CONTROL_INTERRUPT_REQUEST) {
                    control.sendMessage(new Message<>(request.getId(), MessageType.CONTROL_INTERRUPT_REPLY,
                            new ControlInterruptReply()));
                    interrupter.interrupt();
                } else if (type == MessageType.CONTROL_SHUTDOWN_REQUEST) {
                    boolean restart = ((ControlShutdownRequest) request.content()).restart();
                    control.sendMessage(new Message<>(request.getId(), MessageType.CONTROL_SHUTDOWN_REPLY,
                            restart ? ControlShutdownReply.SHUTDOWN_AND_RESTART : ControlShutdownReply.SHUTDOWN));
                    status(request, IOPubStatus.IDLE);
                    shutdown();
                } else {
                    LOG.info("Control message not handled: " + type.name());
                }
            } catch (RuntimeException ex) {
                LOG.severe("Control message " + type.name() + " failed: " + ex);
            } finally {
                status(request, IOPubStatus.IDLE);
            }
        }
    }

    private void status(Message<?> parent, IOPubStatus status) {
        iopub.sendMessage(new Message<>(parent.getId(), MessageType.IOPUB_STATUS, status));
    }

    /** Closes JShell and ends the process once the reply has had time to leave (the client waits for the exit). */
    private void shutdown() {
        LOG.info("Shutdown requested");
        try {
            kernel.onShutdown();
        } catch (RuntimeException ex) {
            LOG.warning("JShell did not close cleanly: " + ex);
        }
        try {
            Thread.sleep(100);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        System.exit(0);
    }
}
