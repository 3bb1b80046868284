/* The worker: the only process that touches CUDA. It reads case lines on
 * stdin and answers each with a result line on stdout (proto.h). */
#ifndef KG_WORKER_H
#define KG_WORKER_H

/* Runs the worker loop on one device until stdin closes; returns the exit
 * code. With roofline, measures the achievable bandwidth before the hello. */
int kg_worker_main(int device, int roofline);

#endif
