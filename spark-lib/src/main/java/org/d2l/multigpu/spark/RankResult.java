package org.d2l.multigpu.spark;

import java.io.Serializable;

/**
 * What one barrier task sent back after its epoch: the trained parameters and optimizer state (rank 0
 * only; every rank holds the same), a hash of its parameters' bits (to check that the replicas are
 * identical), its share of the loss, accuracy and examples, its gradient elements and the buckets they
 * were allreduced in (0 with a compressor, which sends each gradient on its own), the bytes it sent to and received from its
 * ring neighbours during the allreduces (counted on the sockets, handshake apart), connections it
 * refused, where its time went (joining the ring, forward and backward, the allreduces, the updates), and
 * the entries of its compressor's state that changed in the epoch (empty without compression).
 */
public record RankResult(int rank, ParameterValues parameters, ParameterValues optimizerState, long parameterHash,
        double lossSum, double correct, long examples, int steps, long gradientElements, int buckets,
        long bytesSent, long bytesReceived, long handshakeBytes, int refusedConnections, long joinNanos,
        long computeNanos, long allreduceNanos, long updateNanos, CompressionValues compression) implements Serializable {
}
