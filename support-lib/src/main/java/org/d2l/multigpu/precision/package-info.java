/**
 * Half precision for the data-parallel trainer: the precision policy it asks at every step
 * (FLOAT32, or FLOAT16 with float32 master weights), the loss-scaling setting and a run's loss scale.
 */
package org.d2l.multigpu.precision;
