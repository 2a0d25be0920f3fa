/**
 * Half precision for the data-parallel trainer: the precision policy it asks at every step
 * (FLOAT32, FLOAT16 with float32 master weights, or pure float16), the loss-scaling setting and a
 * run's loss scale; and what float16 does, measured: gradients it flushes to zero, updates it loses,
 * the bytes each kind of copy takes.
 */
package org.d2l.multigpu.precision;
