/**
 * The TCP ring that Spark's barrier tasks form (join, handshake, ring allreduce over sockets) and the
 * collective seam over it, {@link org.d2l.multigpu.spark.ring.TcpRingCollective}.
 */
package org.d2l.multigpu.spark.ring;
